@testable import BeaconRules
import Foundation
import Testing

/// Every JSON example of the vendor documents the formats come from (`Tests/Fixtures/seeds/`,
/// one folder per document; its README says what each is) loads or applies, and does what its
/// document says it means.
struct SeedExampleTests {
    static let beacon = "b9407f30f5f8466eaff925556b57fe6d0010000001"

    static func seed(_ path: String) throws -> JSONValue {
        try JSONParser.parse(Paths.read(Paths.fixture("seeds/" + path)))
    }

    /// A campaign whose action carries an MCE payload's keys as they are (`aps`,
    /// `notification-action`, `category-actions`, ...), as a campaign manager pastes them.
    static func campaign(withPayload path: String) throws -> String {
        let payload = Paths.read(Paths.fixture("seeds/" + path)).trimmingCharacters(in: .whitespacesAndNewlines)
        return #"{"eid": "seed", "trigger": 1, "type": 1, "beacons": ["\#(beacon)"], "content": {"subject": "Seed", "body": "Example"}, "#
            + payload.dropFirst()
    }

    /// The APNs payload of the campaign's record for one enter event.
    static func apns(_ campaign: String, locale: String? = "en") throws -> JSONValue {
        var engine = try Harness.engine(campaign)
        let records = engine.process(Harness.event(beacon: beacon, at: "2026-06-05T10:00:00Z", locale: locale))
        return try JSONParser.parse(try #require(records.first).apnsLine)
    }

    /// No seed example without its line in the README and a test here that reads it.
    @Test func everySeedExampleIsListedAndTested() throws {
        let folder = Paths.fixture("seeds")
        let files = try #require(FileManager.default.enumerator(atPath: folder)).compactMap { $0 as? String }
            .filter { $0.hasSuffix(".json") || $0.hasSuffix(".jsonl") }
        #expect(files.count == 14)
        let readme = Paths.read(folder + "/README.md"), tests = Paths.read(#filePath)
        for file in files {
            #expect(readme.contains("`\(file)`"), "\(file) is not in the README")
            #expect(tests.contains("\(file)\""), "\(file) has no test")
        }
    }

    // MARK: - Sensorberg: the localized payload

    /// "confirmAction open: open the URL given in campaign"; "actInForeground true: the app comes to
    /// the foreground"; the language objects are the notification's strings.
    @Test(arguments: [("de-DE", "Zur Website", "Schließen", "Hallo!!"), ("en-US", "Open Website", "Close", "Hi!!"), ("ko-KR", "사이트 열기", "닫기", "안녕하세요!!")])
    func sensorbergPayloadGivesEachLanguageItsButtons(locale: String, ok: String, cancel: String, title: String) throws {
        let payload = Paths.read(Paths.fixture("seeds/sensorberg-actionable-notification-payload/custom-payload.json"))
        var engine = try Harness.engine(#"{"eid": "sb", "trigger": 1, "type": 1, "beacons": ["\#(Self.beacon)"], "content": {"url": "https://www.sensorberg.com", "payload": \#(payload)}}"#)
        let record = try #require(engine.process(Harness.event(beacon: Self.beacon, at: "2026-06-05T10:00:00Z", locale: locale)).first)
        #expect(record.title == title)
        let actions = try #require(record.category?.actions)
        #expect(actions.map(\.title) == [ok, cancel])
        #expect(actions.map(\.behavior) == ["open", "dismiss"])
        #expect(actions.map(\.foreground) == [true, false])
        let okButton = try JSONParser.parse(record.apnsLine)["category-actions"]?.arrayElements?.first?.value
        #expect(okButton?["type"]?.stringValue == "url")
        #expect(okButton?["value"]?.stringValue == "https://www.sensorberg.com")
    }

    /// The post's prose calls it `confirmationAction`: share "shares the URL given in campaign".
    @Test func sensorbergProseSpellingSharesTheURL() throws {
        var engine = try Harness.engine(#"""
            {"eid": "sb", "trigger": 2, "type": 1, "beacons": ["\#(Self.beacon)"], "content": {"url": "https://www.sensorberg.com",
             "payload": {"onExit": {"confirmationAction": "share", "actInForeground": false, "en": {"title": "Bye", "message": "Share us", "okButtonTitle": "Share", "cancelButtonTitle": "Close"}}}}}
            """#)
        let record = try #require(engine.process(Harness.event(.exit, beacon: Self.beacon, at: "2026-06-05T10:00:00Z", locale: "en")).first)
        #expect(record.category?.actions.first?.behavior == "share")
        #expect(record.category?.actions.first?.foreground == false)
    }

    // MARK: - MCE payloads pasted into a campaign

    /// The dynamic category examples: their buttons, default action and category name reach the
    /// device as written; `url` buttons get MCE's flags (not destructive, no authentication, foreground).
    @Test(arguments: ["mce-action-categories/dynamic-category.json", "mce-default-actions/dynamic-category.json", "mce-default-actions/ios10-payload.json"])
    func mceDynamicCategoryReachesTheDevice(_ path: String) throws {
        let document = try Self.seed(path)
        let apns = try Self.apns(try Self.campaign(withPayload: path))
        #expect(apns["notification-action"]?.sameContent(as: try #require(document["notification-action"])) == true)
        #expect(apns["category-name"]?.stringValue == document["category-name"]?.stringValue)
        #expect(apns["aps"]?["mutable-content"]?.integerValue == 1)
        let sent = try #require(apns["category-actions"]?.arrayElements).map(\.value)
        let written = try #require(document["category-actions"]?.arrayElements).map(\.value)
        #expect(sent.map { $0["name"]?.stringValue } == written.map { $0["name"]?.stringValue })
        #expect(sent.map { $0["value"]?.stringValue } == written.map { $0["value"]?.stringValue })
        for button in sent {
            #expect(button["type"]?.stringValue == "url")
            #expect((button["destructive"], button["authentication"], button["foreground"]) == (.bool(false), .bool(false), .bool(true)))
        }
        if let media = document["media-attachment"]?.stringValue { #expect(apns["media-attachment"]?.stringValue == media) }
    }

    /// Sound and badge of the pasted `aps`, and the single action of a message with no category.
    @Test(arguments: ["mce-default-actions/deep-link.json", "mce-action-categories/static-category-api.json", "mce-default-actions/no-action-category.json"])
    func mceApsSoundAndBadgeReachTheDevice(_ path: String) throws {
        let document = try Self.seed(path)
        let apns = try Self.apns(try Self.campaign(withPayload: path))
        #expect(apns["aps"]?["badge"]?.integerValue == document["aps"]?["badge"]?.integerValue)
        #expect(apns["aps"]?["sound"]?.stringValue == document["aps"]?["sound"]?.stringValue ?? "default")
        if let action = document["notification-action"] {
            #expect(apns["notification-action"]?.sameContent(as: action) == true)
        }
    }

    /// The static category template names a category the app compiled in; the API payload sends
    /// it as `aps.category`, where the app's `handleActionWithIdentifier` looks for it:
    /// `categoryName` puts it there.
    @Test func mceStaticCategoryIsTheRecordsCategory() throws {
        let template = try Self.seed("mce-action-categories/static-category-template.json")
        let name = try #require(template["category"]?.stringValue)
        #expect(try Self.seed("mce-action-categories/static-category-api.json")["aps"]?["category"]?.stringValue == name)
        let apns = try Self.apns(#"{"eid": "seed", "trigger": 1, "type": 1, "beacons": ["\#(Self.beacon)"], "content": {"body": "Message"}, "categoryName": "\#(name)", "aps": {"badge": 3, "sound": "default"}}"#)
        #expect(apns["aps"]?["category"]?.stringValue == "example")
        #expect(apns["aps"]?["alert"]?.stringValue == "Message")
        #expect(apns["aps"]?["badge"]?.integerValue == 3)
    }

    // MARK: - MCE plug-in blocks

    /// Each plug-in block of the document, as the notification's action and as a button (which
    /// must then give its three flags: MCE assumes them only for rich, dial and url).
    @Test(arguments: [
        ("mce-default-actions/add-to-calendar.json", "calendar"), ("mce-default-actions/snooze.json", "snooze"),
        ("mce-default-actions/add-to-passbook.json", "passbook"), ("mce-default-actions/web-action.json", "displayWebView"),
        ("mce-custom-action-requirements/custom-action.json", "custom"),
    ])
    func mcePluginBlockLoadsAsAnActionAndAsAButtonWithItsFlags(_ path: String, _ type: String) throws {
        let block = Paths.read(Paths.fixture("seeds/" + path)).trimmingCharacters(in: .whitespacesAndNewlines)
        /// The block as a button: its title added, and `extra` keys.
        func button(_ extra: String = "") -> String { block.dropLast() + #", "name": "Go""# + extra + "}" }
        let asAction = try Harness.campaigns(#"{"eid": "seed", "type": 1, "beacons": ["\#(Self.beacon)"], "notificationAction": \#(block)}"#)[0]
        #expect(asAction.actions.notificationAction?.kind.name == type)

        var decoder = CampaignDecoder(file: "x.json")
        _ = decoder.decode(document: try JSONParser.parse(#"{"eid": "seed", "type": 1, "beacons": ["\#(Self.beacon)"], "category-actions": [\#(button())]}"#))
        let errors = decoder.diagnostics.filter { $0.severity == .error }.map(\.message)
        #expect(errors.count == 3, "\(errors)")
        #expect(errors.allSatisfy { $0.contains("must give") && $0.contains("only for rich, dial and url") })

        let flags = #", "destructive": false, "authentication": false, "foreground": true"#
        let asButton = try Harness.campaigns(#"{"eid": "seed", "type": 1, "beacons": ["\#(Self.beacon)"], "category-actions": [\#(button(flags))]}"#)[0]
        #expect(asButton.actions.categoryActions.first?.action.kind.name == type)
    }

    /// The Add to Calendar block is flat: its event keys are the action's value, as the `value` form.
    @Test func mceFlatCalendarIsTheValueForm() throws {
        let flat = try Harness.campaigns(#"{"eid": "seed", "type": 1, "beacons": ["\#(Self.beacon)"], "notification-action": \#(Paths.read(Paths.fixture("seeds/mce-default-actions/add-to-calendar.json")))}"#)[0]
        let value = try #require(flat.actions.notificationAction?.value)
        #expect(value["title"]?.stringValue == "Night tour")
        #expect(value["startDate"]?.stringValue == "2015-04-07T10:10:10Z")
        #expect(value["interactive"] == .bool(true))
        #expect(value["type"] == nil)
    }

    // MARK: - Xtremepush: responses

    /// "Marking a message as opened will not automatically update the click value"; "messages
    /// clicked will be considered opened"; the click's follow-up keeps the message's `data`.
    @Test func xtremepushOpenedIsNotClickedAndAClickKeepsItsData() throws {
        var engine = try Harness.engine(paths: [Paths.campaigns])
        let trace = Paths.read(Paths.fixture("seeds/xtremepush-custom-message-handling/responses.jsonl"))
        var writer = JSONWriter()
        for (i, line) in trace.split(separator: "\n").enumerated() {
            let bytes = Array(line.utf8)
            try bytes.withUnsafeBufferPointer { line in _ = try engine.replayInput(line: line, fallbackID: "responses.jsonl:\(i + 1)", format: .records, into: &writer) }
        }
        let records = String(decoding: writer.bytes, as: UTF8.self)
        let funnels = engine.ledger.funnels().filter { $0.campaign == "museum-goodbye" }
        let de = try #require(funnels.first { $0.language == "de" }), en = try #require(funnels.first { $0.language == "en" })
        #expect((de.presented, de.opened, de.clicked) == (1, 1, 1))
        #expect((en.presented, en.opened, en.clicked) == (1, 1, 0))
        let followUp = try #require(records.split(separator: "\n").first { $0.contains(#""kind":"followUp""#) })
        #expect(try JSONParser.parse(String(followUp))["data"]?["articleId"]?.stringValue == "a-17")
    }
}
