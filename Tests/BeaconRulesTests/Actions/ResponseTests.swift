@testable import BeaconRules
import Testing

/// Responses: click implies opened, each state once per notification, handlers, unknown ids.
struct ResponseTests {
    static let beacon = "7367672374000000ffff0000ffff00070733107331"
    static let campaign = """
        {"eid": "offer", "trigger": 1, "type": 1, "beacons": ["\(beacon)"],
         "content": {"subject": "Offer", "body": "10% off", "url": "https://shop.example.com",
                     "payload": {"onEnter": {"en": {"title": "Offer", "subtitle": "Today", "message": "10% off"}}}},
         "categoryActions": [{"id": "later", "name": "Later", "type": "snooze", "value": 10, "destructive": false, "authentication": false, "foreground": false},
                             {"id": "tell", "name": "Tell", "type": "share", "value": "https://shop.example.com", "destructive": false, "authentication": false, "foreground": true},
                             {"id": "coupon", "name": "Coupon", "type": "coupon", "destructive": false, "authentication": false, "foreground": true}],
         "mediaAttachment": "https://cdn.example.com/a.jpg"}
        """

    func delivered() throws -> RulesEngine<InMemorySuppressionStore> {
        var engine = try Harness.engine(Self.campaign)
        #expect(engine.process(Harness.event(beacon: Self.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en")).count == 1)
        return engine
    }

    func response(_ action: ResponseAction, _ actionId: String? = nil, id: String = "offer:d1:e1", minute: Int = 1) -> ResponseEvent {
        ResponseEvent(id: "r", device: "d1", notification: id, action: action, actionId: actionId, time: Timestamp(milliseconds: 1_778_428_800_000 + Int64(minute) * 60_000))
    }

    func funnel(_ engine: RulesEngine<InMemorySuppressionStore>) -> CampaignFunnel { engine.ledger.funnels()[0] }

    @Test func clickImpliesOpenedAndPresented() throws {
        var engine = try delivered()
        _ = try engine.respond(to: response(.click, "tell"))
        let f = funnel(engine)
        #expect((f.delivered, f.presented, f.opened, f.clicked, f.dismissed) == (1, 1, 1, 1, 0))
        #expect(f.clicks == ["tell": 1])
    }

    @Test func aTapOnTheNotificationOpensWithoutClicking() throws {
        var engine = try delivered()
        _ = try engine.respond(to: response(.click))
        let f = funnel(engine)
        #expect((f.opened, f.clicked) == (1, 0))
    }

    /// Deliveries are indexed only when the ledger is read: the same event given again before then
    /// is still one notification, through `write` (the hot path) as through `process`.
    @Test func anEventGivenTwiceIsOneDeliveredNotification() throws {
        var engine = try delivered()
        var writer = JSONWriter()
        engine.write(Harness.event(beacon: Self.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1", locale: "en"), into: &writer)
        #expect(!writer.bytes.isEmpty)
        #expect(engine.ledger.count == 1)
        #expect(funnel(engine).delivered == 1)
        #expect(try engine.respond(to: response(.present)).counted)
        #expect(funnel(engine).presented == 1)
    }

    /// The hot path hashes the record id from the bytes it already wrote when device and event id
    /// needed no escapes, and from the strings when they did: both must find the notification.
    @Test(arguments: [("d1", "e1"), ("d\"1", "e\\1"), ("d1", "e\n1"), ("dévice", "é")])
    func responsesFindRecordsWrittenOnTheHotPath(device: String, id: String) throws {
        var engine = try Harness.engine(Self.campaign)
        var writer = JSONWriter()
        engine.write(Harness.event(beacon: Self.beacon, at: "2026-05-10T16:00:00Z", device: device, id: id, locale: "en"), into: &writer)
        #expect(!writer.bytes.isEmpty)
        let present = ResponseEvent(id: "r", device: device, notification: "offer:\(device):\(id)", action: .present, actionId: nil, time: Timestamp(milliseconds: 1_778_428_860_000))
        #expect(try engine.respond(to: present).counted)
        #expect(funnel(engine).presented == 1)
    }

    @Test func repeatedAndOutOfOrderResponsesCountOnce() throws {
        var engine = try delivered()
        let stream: [ResponseEvent] = [response(.click, "tell"), response(.present), response(.click, "tell"), response(.present), response(.dismiss), response(.dismiss), response(.click)]
        let counted = try stream.map { try engine.respond(to: $0).counted }
        #expect(counted == [true, false, false, false, true, false, false])
        let f = funnel(engine)
        #expect((f.delivered, f.presented, f.opened, f.clicked, f.dismissed) == (1, 1, 1, 1, 1))
        #expect(f.clicks == ["tell": 1])
    }

    @Test func snoozeSchedulesTheRecordAgainAndItsResponsesCountForTheOriginal() throws {
        var engine = try delivered()
        let outcome = try engine.respond(to: response(.click, "later", minute: 2))
        guard case .schedule(let record)? = outcome.outputs.first else { Issue.record("no record scheduled"); return }
        #expect(record.id == "offer:d1:e1:snooze")
        #expect(record.jsonLine.contains(#""id":"offer:d1:e1:snooze""#))
        #expect(record.fireDate.milliseconds == 1_778_428_800_000 + 12 * 60_000)
        #expect(try engine.respond(to: response(.click, "later", minute: 2)).outputs.isEmpty)
        _ = try engine.respond(to: response(.click, "tell", id: "offer:d1:e1:snooze"))
        let f = funnel(engine)
        #expect((f.delivered, f.clicked) == (1, 1))
        #expect(f.clicks == ["later": 1, "tell": 1])
    }

    @Test func shareEmitsAFollowUpRecord() throws {
        var engine = try delivered()
        let outcome = try engine.respond(to: response(.click, "tell"))
        guard case .followUp(let followUp)? = outcome.outputs.first else { Issue.record("no follow-up"); return }
        #expect(followUp.id == "offer:d1:e1:tell")
        #expect(followUp.action == NotificationAction(kind: .share, value: .string("https://shop.example.com")))
    }

    @Test func unknownTypesAreCountedAsUnhandledUntilAHandlerIsRegistered() throws {
        var engine = try delivered()
        let first = try engine.respond(to: response(.click, "coupon"))
        #expect(first.unhandled == .custom("coupon"))
        #expect(funnel(engine).unhandled == ["coupon": 1])

        var other = try delivered()
        other.actionRegistry.register(type: "coupon") { invocation in
            [.followUp(FollowUpRecord(invocation))]
        }
        let handled = try other.respond(to: response(.click, "coupon"))
        #expect(handled.unhandled == nil)
        #expect(handled.outputs.count == 1)
    }

    @Test func aHostCanOverrideAPredefinedHandler() throws {
        var engine = try delivered()
        engine.actionRegistry.register(.share) { _ in [] }
        #expect(try engine.respond(to: response(.click, "tell")).outputs.isEmpty)
    }

    @Test func anUnknownRecordIdIsAnError() throws {
        var engine = try delivered()
        #expect(throws: ResponseError.self) { try engine.respond(to: response(.click, id: "offer:d1:nope")) }
        #expect(funnel(engine).clicked == 0)
    }

    @Test func aButtonTheNotificationLacksIsAnError() throws {
        var engine = try delivered()
        do {
            _ = try engine.respond(to: response(.click, "zzz"))
            Issue.record("expected an error")
        } catch {
            #expect(error.kind == .unknownAction)
            #expect(error.message.contains("\"later\""))
        }
    }

    @Test func cancelOnTheDefaultCategoryIsADismissal() throws {
        var engine = try Harness.engine(#"{"eid": "plain", "trigger": 1, "type": 1, "beacons": ["\#(Self.beacon)"], "content": {"subject": "Hi"}}"#)
        _ = engine.process(Harness.event(beacon: Self.beacon, at: "2026-05-10T16:00:00Z", device: "d1", id: "e1"))
        _ = try engine.respond(to: response(.click, "cancel", id: "plain:d1:e1"))
        let f = funnel(engine)
        #expect((f.dismissed, f.clicked, f.opened) == (1, 0, 0))
    }

    @Test func responseLinesParseAndOtherTypesKeepTheirMessages() throws {
        let line = #"{"type":"response","device":"d1","notification":"offer:d1:e1","action":"click","actionId":"ok","time":"2026-05-10T16:00:00Z"}"#
        guard case .response(let r) = try EventParser.parseInput(line: line, fallbackID: "s:1") else { Issue.record("not a response"); return }
        #expect((r.id, r.action, r.actionId) == ("s:1", .click, "ok"))
        #expect(throws: EventError.self) { try EventParser.parse(line: line, fallbackID: "s:1") }
        #expect(throws: EventError("field `action`: expected \"present\", \"open\", \"click\" or \"dismiss\", found \"tap\"", column: 62)) {
            try EventParser.parseInput(line: #"{"type":"response","device":"d1","notification":"x","action":"tap","time":1}"#, fallbackID: "s:1")
        }
    }

    @Test func theLedgerSurvivesItsJSONLines() throws {
        var engine = try delivered()
        _ = try engine.respond(to: response(.click, "later"))
        _ = try engine.respond(to: response(.click, "coupon"))
        var w = JSONWriter()
        engine.ledger.appendJSONLines(to: &w)
        var copy = DeliveryLedger()
        for line in w.bytes.split(separator: 0x0A) { try copy.load(line: try JSONParser.parse(Array(line))) }
        #expect(copy.funnels() == engine.ledger.funnels())
        #expect(copy.entryIndex("offer:d1:e1:snooze") != nil)
    }
}
