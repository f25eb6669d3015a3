@testable import BeaconRules
import CampaignFiles
import Testing

/// The `Locales/` folder the project ships.
@Suite("Shipped Locales")
struct ShippedLocalesTests {
    static let languages = ["de", "en", "fr", "es", "it", "nl", "pt", "pt-BR", "ja", "ko", "zh-Hans", "zh-Hant", "ar"]
    static let keys = ["okButtonTitle", "openButtonTitle", "shareButtonTitle", "cancelButtonTitle"]

    @Test func everyLocaleFileLoadsWithoutDiagnostics() {
        let (table, diagnostics) = LocaleFiles.load(directory: Paths.locales)
        #expect(diagnostics.isEmpty)
        #expect(table.entries.count >= 13)
        #expect(table.fallbackCycles().isEmpty)
    }

    @Test(arguments: languages)
    func requiredLanguageHasEveryButtonTitle(tag: String) {
        for key in Self.keys {
            #expect(Harness.locales.string(key, startingAt: tag) != nil, "\(tag) lacks \(key)")
        }
        #expect(Harness.locales.entry(LanguageTag.normalize(tag)) != nil)
    }

    @Test(arguments: [("pt-BR", "pt"), ("zh-HK", "zh-Hant"), ("zh-TW", "zh-Hant"), ("nb", "no"), ("zh", "zh-Hans")])
    func naturalFallbacksAreDeclared(tag: String, fallback: String) throws {
        let entry = try #require(Harness.locales.entry(LanguageTag.normalize(tag)))
        #expect(entry.fallback.contains(fallback))
    }

    @Test func buttonTitlesAreTranslated() {
        #expect(Harness.locales.string("cancelButtonTitle", startingAt: "de") == "Abbrechen")
        #expect(Harness.locales.string("cancelButtonTitle", startingAt: "fr") == "Annuler")
        #expect(Harness.locales.string("shareButtonTitle", startingAt: "pt-BR") == "Compartilhar")
        #expect(Harness.locales.string("shareButtonTitle", startingAt: "pt") == "Partilhar")
        #expect(Harness.locales.string("cancelButtonTitle", startingAt: "zh-HK") == "取消")
        #expect(Harness.locales.string("cancelButtonTitle", startingAt: "nb") == "Avbryt")
        #expect(Harness.locales.string("okButtonTitle", startingAt: "ar") == "موافق")
    }
}
