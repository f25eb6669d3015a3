extension PresenceLayer {
    /// Forgets the (device, beacon) pairs idle at `now` (`PresenceTracker.isForgettable`: no open
    /// stay, nothing pending, no input for `idleHorizon`), keeping every other pair's state as it
    /// is: their trackers, hearing gates and zones, with timers made again from the trackers (as a
    /// restore makes them; a timer only resolves what is due). Not while a device runs behind the
    /// stream on a lane of its own (replay), whose lanes name devices by index.
    ///
    /// Runs when the pairs held reach `sweepAt`, which becomes twice the pairs kept: a sweep
    /// reads every pair, so each costs a constant per pair added since the last.
    package mutating func forgetIdlePairs(at now: Int64) {
        guard lanes.isEmpty, now != Int64.min else { return }
        let horizon = Swift.max(
            idleHorizon, settings.smoothingWindowMilliseconds, settings.enterWindowMilliseconds,
            settings.exitTimeoutMilliseconds &+ settings.maxLatenessMilliseconds)
        var newIndex = [Int](repeating: -1, count: keys.count)
        var kept = 0
        for index in keys.indices where !trackers[index].isForgettable(at: now, after: horizon) {
            newIndex[index] = kept
            kept += 1
        }
        if kept < keys.count {
            var keptKeys: [PresenceKey] = [], keptTrackers: [PresenceTracker] = []
            keptKeys.reserveCapacity(kept)
            keptTrackers.reserveCapacity(kept)
            for index in keys.indices where newIndex[index] >= 0 {
                keptKeys.append(keys[index])
                keptTrackers.append(trackers[index])
            }
            keys = keptKeys
            trackers = keptTrackers
            keyIndex = [:]
            for (index, key) in keys.enumerated() { keyIndex[key] = index }
            zones?.keep(newIndex)
            // Devices are named again by the pairs kept (no lane refers to one: see the guard).
            deviceIndex = [:]
            rebuildTimers()
        }
        sweepAt = Swift.max(Self.firstSweep, 2 * kept)
    }
}

extension ExclusiveZones {
    /// Keeps the pairs whose `newIndex` is not -1, renumbered so; a zone left with no pair (its
    /// subject not heard for long) goes. The decisions of the pairs kept go on as they were.
    mutating func keep(_ newIndex: [Int]) {
        func renumbered(_ pair: Int?) -> Int? { pair.flatMap { newIndex[$0] >= 0 ? newIndex[$0] : nil } }
        var zoneNumber = [Int](repeating: -1, count: zones.count)
        var keptZones: [Zone] = []
        for (number, zone) in zones.enumerated() {
            var zone = zone
            zone.pairs = zone.pairs.compactMap { renumbered($0) }
            guard !zone.pairs.isEmpty else { continue }
            zone.present = renumbered(zone.present)
            zone.challenger = renumbered(zone.challenger)
            zoneNumber[number] = keptZones.count
            keptZones.append(zone)
        }
        zones = keptZones
        zoneIndex = zoneIndex.compactMapValues { zoneNumber[$0] >= 0 ? zoneNumber[$0] : nil }
        var keptZoneOf: [Int] = [], keptGates: [PresenceTracker] = []
        for pair in zoneOf.indices where newIndex[pair] >= 0 {
            keptZoneOf.append(zoneNumber[zoneOf[pair]])
            keptGates.append(gates[pair])
        }
        zoneOf = keptZoneOf
        gates = keptGates
    }
}
