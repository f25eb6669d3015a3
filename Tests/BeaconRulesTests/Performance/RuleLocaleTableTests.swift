@testable import BeaconRules
import Testing

/// `RuleLocaleTable`: one value per (campaign index, locale slot, trigger), by direct index for
/// the first locale slots and hashed beyond them.
@Suite("Values per campaign, locale and trigger")
struct RuleLocaleTableTests {
    @Test func everyValueSetIsReadBackAndNoOther() {
        var table = RuleLocaleTable(rules: 5)
        let locales: [UInt32] = [0, 1, 2, 15, 16, 17, 1_000]
        for locale in locales {
            for rule in [0, 4] {
                table.set(rule: rule, locale: locale, trigger: .enter, Int64(rule * 10_000) + Int64(locale))
                table.set(rule: rule, locale: locale, trigger: .exit, -Int64(rule * 10_000) - Int64(locale) - 1)
            }
        }
        for locale in locales {
            for rule in 0..<5 {
                let enter = table.value(rule: rule, locale: locale, trigger: .enter)
                let exit = table.value(rule: rule, locale: locale, trigger: .exit)
                if rule == 0 || rule == 4 {
                    #expect(enter == Int64(rule * 10_000) + Int64(locale))
                    #expect(exit == -Int64(rule * 10_000) - Int64(locale) - 1)
                } else {
                    #expect(enter == nil && exit == nil)
                }
            }
        }
        #expect(table.value(rule: 0, locale: 3, trigger: .enter) == nil)
        #expect(table.value(rule: 0, locale: 18, trigger: .enter) == nil)
    }

    /// Forty device locales, past the directly indexed ones: the records are still the
    /// reference path's, in each device's language.
    @Test func manyLocalesGiveTheReferenceRecords() throws {
        let campaign = """
            {"eid": "hello", "trigger": 3, "type": 1, "beacons": ["\(ResponseTests.beacon)"],
             "content": {"subject": "Hi", "body": "There", "url": null,
                         "payload": {"onEnter": {"de": {"title": "Hallo", "message": "Da"}, "en": {"title": "Hello", "message": "There"}}}}}
            """
        var fast = try Harness.engine(campaign)
        var reference = try Harness.engine(campaign)
        var writer = JSONWriter()
        var expected = ""
        for n in 0..<160 {
            let locale = (n % 2 == 0 ? "de-" : "en-") + "X\(n % 40)"
            let event = BeaconEvent(id: "e\(n)", device: "d\(n)", kind: n % 3 == 0 ? .exit : .enter, beacon: InPlaceEventTests.beacon, time: Timestamp(milliseconds: Int64(n) * 1_000), locale: locale)
            fast.write(event, into: &writer)
            for record in reference.process(event) { expected += record.jsonLine + "\n" }
        }
        #expect(String(decoding: writer.bytes, as: UTF8.self) == expected)
        #expect(fast.ledger.count == reference.ledger.count)
        #expect(fast.ledger.allLines() == reference.ledger.allLines())
    }
}
