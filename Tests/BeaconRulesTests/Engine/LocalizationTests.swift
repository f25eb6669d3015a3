@testable import BeaconRules
import Testing

/// The language chain and default strings of SPEC section 2.
@Suite("Localization")
struct LocalizationTests {
    let pid = "7367672374000000ffff0000ffff00070733107331"

    func engine(block: String, trigger: Int = 3) throws -> RulesEngine<InMemorySuppressionStore> {
        try Harness.engine(#"{"eid":"80e73093310a49d9b43e4af6b47c19eb","type":1,"trigger":\#(trigger),"beacons":["\#(pid)"],"content":{"subject":"S","body":"B","url":"http://quarlo.tumblr.com","payload":\#(block)}}"#)
    }

    let specBlock = #"{"onEnter": {"confirmAction": "open", "actInForeground": true, "de": {"okButtonTitle": "Zur Website", "cancelButtonTitle": "Schließen", "title": "Hallo!!", "message": "Willkommen!"}, "en": {"okButtonTitle": "Open Website", "cancelButtonTitle": "Close", "title": "Hi!!", "message": "Welcome!"}}}"#

    func language(_ locale: String?, block: String? = nil) throws -> String? {
        var e = try engine(block: block ?? specBlock)
        return try #require(e.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", locale: locale)).first).language
    }

    @Test func specExampleRecordIsExact() throws {
        var e = try engine(block: specBlock)
        let record = try #require(e.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", device: "d-42", id: "e-1001", locale: "de-DE")).first)
        let expected = #"{"kind":"notification","id":"80e73093310a49d9b43e4af6b47c19eb:d-42:e-1001","campaign":"80e73093310a49d9b43e4af6b47c19eb","device":"d-42","event":"e-1001","trigger":"enter","beacon":"7367672374000000ffff0000ffff00070733107331","fireDate":"2016-05-10T16:00:00Z","actionType":"notification","language":"de","title":"Hallo!!","body":"Willkommen!","url":"http://quarlo.tumblr.com","category":{"id":"80e73093310a49d9b43e4af6b47c19eb.enter.de","actions":[{"id":"ok","title":"Zur Website","behavior":"open","foreground":true,"destructive":false,"authenticationRequired":false},{"id":"cancel","title":"Schließen","behavior":"dismiss","foreground":false,"destructive":false,"authenticationRequired":false}]},"notificationAction":{"type":"url","value":"http://quarlo.tumblr.com"},"payload":{"onEnter":{"confirmAction":"open","actInForeground":true,"de":{"okButtonTitle":"Zur Website","cancelButtonTitle":"Schließen","title":"Hallo!!","message":"Willkommen!"},"en":{"okButtonTitle":"Open Website","cancelButtonTitle":"Close","title":"Hi!!","message":"Welcome!"}}}}"#
        #expect(record.jsonLine == expected)
    }

    @Test(arguments: [("de-DE", "de"), ("de_AT", "de"), ("DE", "de"), ("en-US", "en"), ("fr-FR", "en"), (nil, "en")] as [(String?, String)])
    func fullTagThenPrefixesThenEnglish(locale: String?, expected: String) throws {
        #expect(try language(locale) == expected)
    }

    @Test func fullTagBeatsItsPrefix() throws {
        let block = #"{"onEnter":{"de":{"title":"de"},"de-AT":{"title":"at"}}}"#
        #expect(try language("de-at", block: block) == "de-AT")
        #expect(try language("de-CH", block: block) == "de")
    }

    @Test func localesFallbackChainComesBeforeEnglish() throws {
        let block = #"{"onEnter":{"en":{"title":"en"},"pt":{"title":"pt"},"zh-Hant":{"title":"hant"},"no":{"title":"no"}}}"#
        #expect(try language("pt-BR", block: block) == "pt")
        #expect(try language("zh-HK", block: block) == "zh-Hant")
        #expect(try language("nb-NO", block: block) == "no")
    }

    @Test func firstKeyInSortedOrderWhenNothingElseMatches() throws {
        let block = #"{"onEnter":{"it":{"title":"it"},"es":{"title":"es"}}}"#
        #expect(try language("ja-JP", block: block) == "es")
    }

    @Test func missingStringsComeFromLocalesOfTheChosenLanguageThenEnglish() throws {
        var e = try engine(block: #"{"onEnter":{"ja":{"title":"ようこそ","message":"m"}}}"#)
        let record = try #require(e.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", locale: "ja")).first)
        #expect(record.category?.actions.map(\.title) == ["開く", "キャンセル"])
        var withoutLocale = try engine(block: #"{"onEnter":{"xx":{"title":"t"}}}"#)
        let fallback = try #require(withoutLocale.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", locale: "xx")).first)
        #expect(fallback.category?.actions.map(\.title) == ["Open", "Cancel"])
    }

    @Test func shareConfirmActionAndBackgroundOK() throws {
        var e = try engine(block: #"{"onExit":{"confirmAction":"share","actInForeground":false,"de":{"title":"Tschüss"}}}"#)
        let record = try #require(e.process(Harness.event(.exit, beacon: pid, at: "2016-05-10T16:00:00Z", locale: "de")).first)
        let ok = try #require(record.category?.actions.first)
        #expect(ok.behavior == "share")
        #expect(ok.foreground == false)
        #expect(ok.title == "Teilen")
        #expect(record.category?.actions.last?.foreground == false)
        #expect(record.category?.id == "80e73093310a49d9b43e4af6b47c19eb.exit.de")
    }

    @Test func blockForTheOtherTriggerIsNotUsed() throws {
        var e = try engine(block: #"{"onEnter":{"de":{"title":"Hallo"}}}"#)
        let record = try #require(e.process(Harness.event(.exit, beacon: pid, at: "2016-05-10T16:00:00Z", locale: "de")).first)
        #expect(record.language == nil)
        #expect(record.title == "S")
        #expect(record.body == "B")
        #expect(record.category?.actions.map(\.title) == ["Öffnen", "Abbrechen"])
        #expect(record.category?.id == "80e73093310a49d9b43e4af6b47c19eb.exit.de")
    }

    @Test func withoutABlockTitleAndBodyComeFromContentAndButtonsFromLocales() throws {
        var e = try engine(block: "null")
        let record = try #require(e.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", locale: "fr-CA")).first)
        #expect(record.title == "S")
        #expect(record.body == "B")
        #expect(record.language == nil)
        #expect(record.category?.actions.map(\.title) == ["Ouvrir", "Annuler"])
        #expect(record.payload == .null)
    }

    @Test func categoryIdIsUniquePerCampaignTriggerAndLanguage() throws {
        var e = try engine(block: specBlock)
        var ids: Set<String> = []
        for (i, locale) in ["de", "en", "de-AT"].enumerated() {
            for record in e.process(Harness.event(beacon: pid, at: "2016-05-10T16:00:00Z", id: "\(i)", locale: locale)) { ids.insert(record.category!.id) }
        }
        #expect(ids == ["80e73093310a49d9b43e4af6b47c19eb.enter.de", "80e73093310a49d9b43e4af6b47c19eb.enter.en"])
    }

    @Test func preferenceChainFollowsFallbacksDepthFirstWithoutCycles() {
        let table = LocaleTable(entries: [
            .init(tag: "a", strings: [:], fallback: ["b"]),
            .init(tag: "b", strings: [:], fallback: ["a", "c"]),
            .init(tag: "en", strings: ["okButtonTitle": "OK"]),
        ])
        #expect(table.preferenceChain(for: "a-X") == ["a-x", "a", "b", "c", "en"])
        #expect(table.fallbackCycles().count == 1)
    }
}
