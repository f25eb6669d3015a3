@testable import BeaconRules
@testable import CampaignLint
import Foundation
import Testing

/// Every spelling the SPEC and the vendor documents use for a field is read (`CampaignVocabulary`);
/// two spellings that disagree are a load error naming both; unknown keys are `lint` warnings
/// with the key that was probably meant.
struct SpellingTests {
    static let beacon = SeedExampleTests.beacon

    static func action(_ fields: String) -> String {
        #"{"eid": "c", "trigger": 1, "type": 1, "beacons": ["\#(beacon)"], "content": {"subject": "S", "body": "B", "url": "https://a.example"}, \#(fields)}"#
    }

    static func errors(_ json: String) throws -> [String] {
        var decoder = CampaignDecoder(file: "x.json")
        _ = decoder.decode(document: try JSONParser.parse(json))
        return decoder.diagnostics.filter { $0.severity == .error }.map(\.message)
    }

    @Test func mceHyphenatedKeysReadAsTheCamelCaseOnes() throws {
        let hyphenated = try Harness.campaigns(Self.action(#"""
            "notification-action": {"type": "url", "value": "https://a.example/n"},
            "category-actions": [{"name": "Go", "type": "url", "value": "https://a.example/go"}],
            "category-name": "cat", "media-attachment": "https://cdn.example/a.jpg"
            """#))[0]
        let camel = try Harness.campaigns(Self.action(#"""
            "notificationAction": {"type": "url", "value": "https://a.example/n"},
            "categoryActions": [{"name": "Go", "type": "url", "value": "https://a.example/go"}],
            "categoryName": "cat", "mediaAttachment": "https://cdn.example/a.jpg"
            """#))[0]
        #expect(!hyphenated.actions.isEmpty)
        #expect(hyphenated.actions == camel.actions)
    }

    @Test func theSameValueUnderBothSpellingsIsOneField() throws {
        let campaign = try Harness.campaigns(Self.action(#""categoryName": "cat", "category-name": "cat", "suppressionTime": 900, "supressionTime": 900.0"#))[0]
        #expect(campaign.actions.categoryName == "cat")
        #expect(campaign.suppression == .interval(milliseconds: 900_000))
    }

    @Test(arguments: [
        (#""categoryName": "a", "category-name": "b""#, "`categoryName` (\"a\") and `category-name` (\"b\")"),
        (#""sound": "a.caf", "aps": {"sound": "b.caf"}"#, "`sound` (\"a.caf\") and `aps.sound` (\"b.caf\")"),
        (#""notificationAction": {"type": "openApp"}, "notification-action": {"type": "url", "value": "https://a.example"}"#, "`notificationAction`"),
        (#""categoryActions": [{"id": "a", "identifier": "b", "name": "Go", "type": "url", "value": "https://a.example"}]"#, "`categoryActions[0].id` (\"a\") and `categoryActions[0].identifier` (\"b\")"),
        (#""notificationAction": {"type": "calendar", "title": "A", "startDate": "2026-06-05T18:00:00Z", "endDate": "2026-06-05T19:00:00Z", "value": {"title": "B"}}"#, "`notificationAction.title` (\"A\") and `notificationAction.value.title` (\"B\")"),
    ])
    func twoSpellingsThatDisagreeAreALoadErrorNamingBoth(_ fields: String, _ expected: String) throws {
        let errors = try Self.errors(Self.action(fields))
        #expect(errors.count == 1, "\(errors)")
        #expect(errors.first?.contains(expected) == true, "\(errors)")
        #expect(errors.first?.contains("disagree") == true)
    }

    /// SPEC section 2 reads `supressionTime` only when `suppressionTime` is absent, so a layout
    /// with both loads: the right spelling is read, and a warning names both.
    @Test func suppressionTimeWinsOverADisagreeingSupressionTimeWithAWarning() throws {
        var decoder = CampaignDecoder(file: "x.json")
        let campaigns = decoder.decode(document: try JSONParser.parse(Self.action(#""supressionTime": 60, "suppressionTime": 900"#)))
        #expect(campaigns.map(\.suppression) == [.interval(milliseconds: 900_000)])
        #expect(decoder.diagnostics.map(\.severity) == [.warning])
        #expect(decoder.diagnostics.map(\.message) == ["`supressionTime` (60) and `suppressionTime` (900) are two spellings of one field and disagree; `suppressionTime` is read (SPEC section 2), keep one of them"])
    }

    @Test func confirmationActionAndConfirmActionThatDisagreeAreALoadError() throws {
        let errors = try Self.errors(#"{"eid": "c", "type": 1, "beacons": ["\#(Self.beacon)"], "content": {"payload": {"onEnter": {"confirmAction": "open", "confirmationAction": "share", "en": {"title": "t"}}}}}"#)
        #expect(errors == ["`content.payload.onEnter.confirmAction` (\"open\") and `content.payload.onEnter.confirmationAction` (\"share\") are two spellings of one field and disagree; keep one of them"])
    }

    @Test func apsSoundAndBadgeAreTheCampaignsSoundAndBadge() throws {
        let campaign = try Harness.campaigns(Self.action(#""aps": {"sound": "chime.caf", "badge": 2}"#))[0]
        #expect((campaign.actions.sound, campaign.actions.badge) == ("chime.caf", 2))
        #expect(try Self.errors(Self.action(#""badge": -1"#)).first?.contains("badge number") == true)
    }

    // MARK: - The MCE types that were missing

    static let flags = #""destructive": false, "authentication": false, "foreground": true"#

    @Test func textInputTakesAPlaceholderAndASubmitTitleAndTheTextComesBack() throws {
        var engine = try Harness.engine(Self.action(#""categoryActions": [{"id": "reply", "name": "Reply", "type": "textInput", "value": {"placeholder": "Your answer", "buttonTitle": "Send"}, \#(Self.flags)}]"#))
        _ = engine.process(Harness.event(beacon: Self.beacon, at: "2026-06-05T10:00:00Z", device: "d1", id: "e1"))
        let outcome = try engine.respond(to: ResponseEvent(id: "r", device: "d1", notification: "c:d1:e1", action: .click, actionId: "reply", time: .at("2026-06-05T10:01:00Z"), text: "Lovely"))
        guard case .followUp(let followUp)? = outcome.outputs.first else { Issue.record("no follow-up: \(outcome)"); return }
        #expect(followUp.text == "Lovely")
        #expect(followUp.jsonLine.contains(#""text":"Lovely""#))
        #expect(try Self.errors(Self.action(#""categoryActions": [{"name": "Reply", "type": "textInput", "value": {"placeholder": "Your answer"}, \#(Self.flags)}]"#)).first?.contains("`buttonTitle`") == true)
    }

    @Test func actionMenuListsValidActions() throws {
        let menu = #"[{"name": "Website", "type": "url", "value": "https://a.example"}, {"name": "Call", "type": "dial", "value": "+49 30 123456"}]"#
        let campaign = try Harness.campaigns(Self.action(#""categoryActions": [{"name": "More", "type": "showactions", "value": \#(menu), \#(Self.flags)}]"#))[0]
        #expect(campaign.actions.categoryActions.first?.action.kind == .showActions)
        let bad = try Self.errors(Self.action(#""notificationAction": {"type": "showactions", "value": [{"name": "Call", "type": "dial", "value": "call me"}]}"#))
        #expect(bad.first?.contains("the Action Menu's action 1 (\"Call\"): a dial action takes a phone number") == true, "\(bad)")
        #expect(try Self.errors(Self.action(#""notificationAction": {"type": "showactions", "value": []}"#)).first?.contains("non-empty list") == true)
    }

    @Test func carouselImagesAreHTTPSOnly() throws {
        let images = #"[{"url": "https://cdn.example/1.jpg", "text": "One"}, {"url": "https://cdn.example/2.jpg"}]"#
        #expect(try Self.errors(Self.action(#""notificationAction": {"type": "carousel", "value": \#(images)}"#)).isEmpty)
        let bad = try Self.errors(Self.action(#""notificationAction": {"type": "carousel", "value": [{"url": "http://cdn.example/1.jpg"}]}"#))
        #expect(bad.first?.contains("image 1 needs an https `url`") == true, "\(bad)")
    }

    // MARK: - lint

    static func lint(_ json: String) throws -> [Diagnostic] {
        CampaignLinter(now: .at("2026-06-01T00:00:00Z"), locales: Harness.locales).lint(try Harness.campaigns(json))
    }

    @Test func lintNamesAMisspelledKeyWithTheKeyMeant() throws {
        let findings = try Self.lint(Self.action(#""supressionTme": 600"#))
        #expect(findings.map(\.message) == [#"campaign "c": unknown key "supressionTme" in the action: it is kept, but nothing reads it; did you mean "suppressionTime"?"#])
        #expect(findings.first?.severity == .warning)
        #expect(findings.first?.location.line == 1)
    }

    @Test func lintChecksContentLocalizedBlocksAndActions() throws {
        let findings = try Self.lint(#"""
            {"eid": "c", "trigger": 1, "type": 1, "beacons": ["\#(Self.beacon)"],
             "content": {"subjet": "S", "body": "B",
                         "payload": {"onEnter": {"confirmAktion": "share", "en": {"title": "t", "mesage": "m", "okButtonTitle": "o", "cancelButtonTitle": "c"}}}},
             "notification-action": {"type": "openApp", "valeu": "x"}}
            """#).map(\.message)
        for (key, meant) in [("subjet", "subject"), ("confirmAktion", "confirmAction"), ("mesage", "message"), ("valeu", "value")] {
            #expect(findings.contains { $0.contains("unknown key \"\(key)\"") && $0.hasSuffix("did you mean \"\(meant)\"?") }, "\(findings)")
        }
    }

    @Test func lintDoesNotAskForOKAndCancelTitlesWhereTheCampaignsOwnButtonsReplaceThem() throws {
        let findings = try Self.lint(#"""
            {"eid": "c", "trigger": 1, "type": 1, "beacons": ["\#(Self.beacon)"],
             "content": {"payload": {"onEnter": {"en": {"title": "t", "message": "m"}}}},
             "categoryActions": [{"name": "Go", "type": "url", "value": "https://a.example"}]}
            """#)
        #expect(findings.isEmpty, "\(findings)")
    }
}
