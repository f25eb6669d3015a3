/// Exclusive zones (SPEC section 7): a subject (a device, or a carried beacon) is in at most one
/// room at a time, the room whose smoothed signal is the strongest of the pairs that share it.
///
/// Each pair keeps a hearing gate (a `PresenceTracker` of its own, never emitted): the thresholds
/// and exit timeout decide only whether the pair is heard at all. Among the heard pairs with a
/// reading in the last smoothing window, the subject moves to another room only when that room's
/// smoothed RSSI has led the present one's by `switchMargin` for `switchHold`; a subject that is
/// nowhere is placed once it has been heard for a whole smoothing window, so that every receiver
/// in range has reported before the first room is chosen.
///
/// Invariant: `zones[z].present`, when set, is a pair of zone `z` whose stay tracker (in the
/// layer) is open; no other pair of the zone has a stay opened by sightings.
struct ExclusiveZones: Sendable {
    struct Zone: Sendable {
        var pairs: [Int] = []
        /// The pair the subject is in.
        var present: Int?
        /// While the subject is nowhere: when a heard pair was first seen (`Int64.min`: place at once).
        var placingSince: Int64?
        /// The pair leading the present one by the margin, and since when.
        var challenger: Int?
        var challengerSince: Int64 = 0
    }

    /// What a sighting made the zone decide.
    enum Decision: Equatable {
        case stay
        /// The subject is placed in this pair's room.
        case enter(Int)
        /// The subject leaves one pair's room for another's.
        case move(from: Int, to: Int)
    }

    var subject: PresenceSubject
    var zoneIndex: [String: Int] = [:]
    var zones: [Zone] = []
    /// Zones whose subject was forgotten, to be given to new subjects.
    var freeZones: [Int] = []
    /// Per pair slot: its zone (-1: a free slot), and its hearing gate.
    var zoneOf: [Int] = []
    var gates: [PresenceTracker] = []
    private var scratch: [PresenceTracker.Change] = []

    init(subject: PresenceSubject) { self.subject = subject }

    /// Registers a new pair in slot `pair` (the layer's, a free one or the next).
    mutating func add(_ key: PresenceKey, pair: Int, settings: PresenceSettings) {
        let name = subject.subject(of: key)
        let zone: Int
        if let known = zoneIndex[name] { zone = known } else if let free = freeZones.popLast() {
            zone = free
            zoneIndex[name] = zone
        } else {
            zone = zones.count
            zoneIndex[name] = zone
            zones.append(Zone())
        }
        zones[zone].pairs.append(pair)
        while zoneOf.count < pair {
            zoneOf.append(-1)
            gates.append(PresenceTracker(settings: settings))
        }
        if pair == zoneOf.count {
            zoneOf.append(zone)
            gates.append(PresenceTracker(settings: settings))
        } else {
            zoneOf[pair] = zone
            gates[pair] = PresenceTracker(settings: settings)
        }
    }

    /// Feeds a sighting to its pair's gate; true when it qualifies (keeps a heard pair alive).
    mutating func hear(_ s: Sighting, pair: Int, settings: PresenceSettings) -> Bool {
        scratch.removeAll(keepingCapacity: true)
        gates[pair].resolve(clock: s.time.milliseconds, exitTimeout: settings.exitTimeoutMilliseconds, into: &scratch)
        _ = gates[pair].sighting(s, settings: settings)
        return gates[pair].isInside && gates[pair].presentUntil == s.time.milliseconds
    }

    /// The pair's smoothed RSSI at `t` if it is heard (gate open) and had a reading in the window.
    /// The room the subject is in keeps what it last heard through a drop-out, until its gate
    /// closes: a receiver that misses the subject for a few seconds has not seen it leave, so a
    /// weaker room that happens to be heard meanwhile does not win by default.
    private func signal(_ pair: Int, at t: Int64, exitTimeout: Int64, present: Bool) -> Double? {
        let gate = gates[pair]
        guard gate.isInside, gate.presentUntil &+ exitTimeout > t else { return nil }
        return gate.filter.value(at: t) ?? (present ? gate.filter.lastHeard : nil)
    }

    /// After a sighting of a pair of `zone` at `t`: where the subject is now.
    mutating func decide(zone z: Int, at t: Int64, settings: PresenceSettings) -> Decision {
        let timeout = settings.exitTimeoutMilliseconds
        var best: Int?
        var bestSignal = -Double.infinity
        var presentSignal = -Double.infinity
        for pair in zones[z].pairs {
            guard let value = signal(pair, at: t, exitTimeout: timeout, present: pair == zones[z].present) else { continue }
            if pair == zones[z].present { presentSignal = value; continue }
            if value > bestSignal { (best, bestSignal) = (pair, value) }
        }
        guard let present = zones[z].present else {
            guard let best else {
                zones[z].placingSince = nil
                return .stay
            }
            let since = zones[z].placingSince ?? t
            zones[z].placingSince = since
            guard since == Int64.min || t - since >= settings.smoothingWindowMilliseconds else { return .stay }
            zones[z].placingSince = nil
            zones[z].present = best
            zones[z].challenger = nil
            return .enter(best)
        }
        guard let challenger = best, bestSignal >= presentSignal + settings.switchMargin else {
            zones[z].challenger = nil
            return .stay
        }
        if zones[z].challenger != challenger {
            zones[z].challenger = challenger
            zones[z].challengerSince = t
        }
        guard t - zones[z].challengerSince >= settings.switchHoldMilliseconds else { return .stay }
        zones[z].challenger = nil
        zones[z].present = challenger
        return .move(from: present, to: challenger)
    }

    /// The present pair's stay ended on its own (no qualifying sighting for the exit timeout): the
    /// subject is nowhere, and is placed again at once if another room still hears it.
    mutating func ended(pair: Int) {
        let z = zoneOf[pair]
        guard zones[z].present == pair else { return }
        zones[z].present = nil
        zones[z].challenger = nil
        zones[z].placingSince = Int64.min
    }
}
