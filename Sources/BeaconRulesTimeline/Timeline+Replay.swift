package import BeaconRules

extension Timeline {
    /// The timeline of a trace replayed through the presence layer and the engine (no state), as
    /// `replay` would run it: `inputs` calls its argument with each event or sighting in order.
    /// `beaconrules timeline` and the console's results page both draw through it.
    package static func replaying<Failure: Error>(
        title: String, campaigns: CampaignSet, locales: LocaleTable, settings: PresenceSettings,
        inputs: ((InputEvent) throws(EventError) -> Void) throws(Failure) -> Void
    ) throws(Failure) -> Timeline {
        var engine = PresenceEngine(engine: RulesEngine(campaigns: campaigns, locales: locales, store: InMemorySuppressionStore()), settings: settings)
        engine.keepsLog = true
        var timeline = Timeline(title: title)
        var writer = JSONWriter(capacity: 1 << 16)
        try inputs { (input: InputEvent) throws(EventError) in
            if case .sighting(let s, _) = input { timeline.addSighting(s) }
            try engine.add(input, into: &writer)
        }
        engine.finish(into: &writer)
        timeline.addPresence(engine.log)
        if let subject = settings.exclusiveZones { timeline.addRooms(engine.log, subject: subject) }
        for line in writer.bytes.split(separator: 0x0A) {
            if let record = try? JSONParser.parse(Array(line)) { timeline.addRecord(record) }
        }
        timeline.sortRows()
        return timeline
    }
}
