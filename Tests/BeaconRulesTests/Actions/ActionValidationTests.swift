@testable import BeaconRules
import Testing

/// The MCE validation matrix: which actions load, and which are load errors at their line.
struct ActionValidationTests {
    static let beacon = "7367672374000000ffff0000ffff00070733107331"

    func diagnostics(_ extensions: String) throws -> [Diagnostic] {
        var decoder = CampaignDecoder(file: "x.json")
        _ = decoder.decode(document: try JSONParser.parse("""
            {"eid": "c", "type": 1, "beacons": ["\(Self.beacon)"],
             \(extensions)}
            """))
        return decoder.diagnostics.filter { $0.severity == .error }
    }

    @Test(arguments: [
        #""notificationAction": {"type": "url", "value": "https://example.com"}"#,
        #""notificationAction": {"type": "url", "value": "myapp://offer"}"#,
        #""notificationAction": {"type": "dial", "value": "+49 (30) 123-4567"}"#,
        #""notificationAction": {"type": "openApp"}"#,
        #""notificationAction": {"type": "passbook", "value": "https://example.com/a.pkpass"}"#,
        #""notificationAction": {"type": "displayWebView", "value": "https://example.com"}"#,
        #""notificationAction": {"type": "calendar", "value": {"title": "Tour", "startDate": "2026-06-05T18:00:00Z", "endDate": "2026-06-05T19:00:00Z", "timeZone": "GMT", "interactive": true}}"#,
        #""categoryActions": [{"name": "Later", "type": "snooze", "value": 10, "destructive": false, "authentication": false, "foreground": false}, {"name": "Call", "type": "dial", "value": "0301234567"}]"#,
        #""categoryActions": [{"name": "Mine", "type": "coupon", "destructive": false, "authentication": false, "foreground": true}]"#,
        #""categoryName": "offer", "mediaAttachment": "https://cdn.example.com/a.jpg""#,
    ])
    func validActionsLoad(_ extensions: String) throws {
        #expect(try diagnostics(extensions).isEmpty)
    }

    @Test(arguments: [
        (#""notificationAction": {"type": "passbook", "value": "http://example.com/a.pkpass"}"#, "https URL only"),
        (#""notificationAction": {"type": "displayWebView", "value": "http://example.com"}"#, "https URL only"),
        (#""notificationAction": {"type": "dial", "value": "call me"}"#, "phone number"),
        (#""notificationAction": {"type": "url", "value": "example.com"}"#, "URL with a scheme"),
        (#""notificationAction": {"type": "snooze", "value": 0}"#, "whole minutes"),
        (#""notificationAction": {"type": "snooze", "value": "soon"}"#, "whole minutes"),
        (#""notificationAction": {"type": "calendar", "value": {"title": "T", "startDate": "tomorrow", "endDate": "2026-06-05T19:00:00Z"}}"#, "is not a date"),
        (#""notificationAction": {"type": "calendar", "value": {"title": "T", "startDate": "2026-06-05T19:00:00Z", "endDate": "2026-06-05T18:00:00Z"}}"#, "ends (endDate) before"),
        (#""notificationAction": {"value": "x"}"#, "expected an action type"),
        (#""categoryActions": [{"name": "Mine", "type": "coupon", "destructive": false, "foreground": true}]"#, "must give `authentication`"),
        (#""categoryActions": [{"name": "A", "type": "url", "value": "https://a.example"}, {"name": "B", "type": "url", "value": "https://a.example"}, {"name": "C", "type": "url", "value": "https://a.example"}, {"name": "D", "type": "url", "value": "https://a.example"}, {"name": "E", "type": "url", "value": "https://a.example"}]"#, "at most 4"),
        (#""categoryActions": [{"type": "url", "value": "https://a.example"}]"#, "button title"),
        (#""categoryActions": [{"name": "A", "type": "url", "value": "https://a.example", "foreground": "yes"}]"#, "true or false"),
        (#""mediaAttachment": "http://cdn.example.com/a.jpg""#, "https URL"),
    ])
    func invalidActionsAreLoadErrorsWithALine(_ extensions: String, _ expected: String) throws {
        let errors = try diagnostics(extensions)
        #expect(errors.count >= 1)
        #expect(errors.contains { $0.message.contains(expected) }, "\(errors)")
        #expect(errors.allSatisfy { $0.location.file == "x.json" && $0.location.line == 2 })
    }

    @Test func predefinedTypesDefaultToNotDestructiveNoAuthenticationForeground() throws {
        let campaign = try Harness.campaigns(#"{"eid": "c", "type": 1, "categoryActions": [{"name": "Go", "type": "url", "value": "https://a.example"}, {"name": "Later", "type": "snooze", "value": 5, "destructive": false, "authentication": false, "foreground": false}]}"#)[0]
        let go = campaign.actions.categoryActions[0]
        #expect((go.destructive, go.authentication, go.foreground) == (false, false, true))
        #expect(go.id == "Go")
        #expect(campaign.actions.categoryActions[1].foreground == false)
    }
}
