/// Presence of one device at one beacon: the state machine between raw input (sightings, or given
/// enter/exit events that may flicker) and the enter, exit and dwell events the rules see.
///
/// A stay is open from its enter until its exit is confirmed. `presentUntil` is the latest time the
/// device is known to have been there: the last qualifying sighting, the time of a given exit, or
/// `Int64.max` while a given enter holds the stay open. The exit is confirmed at
/// `presentUntil + exitTimeout`; anything that shows the device again before then is the same stay.
package struct PresenceTracker: Sendable {
    /// A stay is open (possibly with a tentative exit pending).
    package internal(set) var isInside = false
    /// The latest time (ms) the device is known present in the open stay.
    package internal(set) var presentUntil: Int64 = 0
    /// When the open stay started (ms); nil when it began with an exit we never saw the enter of.
    package internal(set) var stayStart: Int64?
    /// Whether any stay was ever seen: an exit with no enter before it is taken as the end of a stay
    /// that started before the input did, but only once.
    package internal(set) var hasHistory = false
    /// The id of the event that opened the stay (dwell ids derive from it).
    var enterID = ""
    /// The id of the last event that kept the stay alive (the exit id derives from it).
    var lastID = ""
    /// Whether `lastID` is a given exit (used as it is) or a sighting (`+exit` is appended).
    var lastIsGivenExit = false
    var locale: String?
    /// Dwell due times (ms) of the open stay, not yet fired, ascending.
    var pendingDwells: [(due: Int64, dwell: Int64)] = []
    var filter: RunningAverageRSSI
    /// The times (ms) of the latest readings that reached `enterRSSI`, at most `enterReadings` of
    /// them: the evidence a stay needs before it starts.
    var strongReadings: [Int64] = []
    /// The time (ms) of the pair's newest input (`Int64.min`: none yet), set by the layer: a pair
    /// with no open stay and no input for long is forgotten (`isForgettable(at:after:)`).
    var lastInput = Int64.min

    package init(settings: PresenceSettings) {
        filter = RunningAverageRSSI(windowMilliseconds: settings.smoothingWindowMilliseconds)
    }

    /// What a step decided.
    package enum Change: Sendable, Equatable {
        /// A stay starts: match an enter event.
        case enter(id: String, time: Int64)
        /// A stay is over: the device was last there at `departedAt`; the exit is confirmed at `time`.
        case exit(id: String, time: Int64, departedAt: Int64)
        /// The device has stayed `dwell` ms: match the dwell campaigns of that length at `time`.
        case dwell(id: String, time: Int64, dwell: Int64)
    }

    /// A raw sighting. Starts a stay when the smoothed RSSI reaches `enterRSSI` (with enough samples,
    /// and `enterReadings` readings that reached it within `enterWindow`), keeps an open one alive
    /// while it stays at or above `exitRSSI`.
    package mutating func sighting(_ s: Sighting, settings: PresenceSettings) -> Change? {
        let t = s.time.milliseconds
        filter.add(rssi: s.rssi, at: t)
        if s.rssi >= settings.enterRSSI {
            strongReadings.append(t)
            if strongReadings.count > settings.enterReadings { strongReadings.removeFirst(strongReadings.count - settings.enterReadings) }
        }
        guard let smoothed = filter.value else { return nil }
        if s.locale != nil { locale = s.locale }
        if isInside {
            guard smoothed >= Double(settings.exitRSSI) else { return nil }
            // A stay held open by a given enter stays open; sightings only extend finite ones.
            if presentUntil != Int64.max && t >= presentUntil {
                presentUntil = t
                lastID = s.id
                lastIsGivenExit = false
            }
            return nil
        }
        guard filter.count >= settings.minimumSamples, smoothed >= Double(settings.enterRSSI),
              hasEvidence(at: t, settings: settings) else { return nil }
        open(at: t, id: s.id)
        presentUntil = t
        lastID = s.id
        lastIsGivenExit = false
        return .enter(id: s.id + "+enter", time: t)
    }

    /// Whether `enterReadings` readings reached `enterRSSI` in the `enterWindow` that ends at `t`.
    func hasEvidence(at t: Int64, settings: PresenceSettings) -> Bool {
        let needed = settings.enterReadings
        return strongReadings.count >= needed && strongReadings[strongReadings.count - needed] >= t - settings.enterWindowMilliseconds
    }

    /// A given enter or exit, with flicker control: an enter while a stay is open (inside, or a
    /// tentative exit not yet confirmed) continues that stay; an exit only makes the exit tentative.
    package mutating func given(_ event: BeaconEvent) -> Change? {
        let t = event.time.milliseconds
        if event.locale != nil { locale = event.locale }
        switch event.kind {
        case .enter:
            if isInside {
                // Duplicate enter, or a re-enter before the exit was confirmed: one stay.
                presentUntil = Int64.max
                return nil
            }
            open(at: t, id: event.id)
            presentUntil = Int64.max
            return .enter(id: event.id, time: t)
        case .exit:
            if isInside {
                // The first exit counts; a second one before the stay resumes adds nothing.
                if presentUntil == Int64.max {
                    presentUntil = t
                    lastID = event.id
                    lastIsGivenExit = true
                }
                return nil
            }
            // Exit without enter: tolerated. With no history it ends a stay that began before
            // the input did; after a confirmed exit it is a duplicate and ignored.
            if hasHistory { return nil }
            isInside = true
            hasHistory = true
            stayStart = nil
            enterID = event.id
            presentUntil = t
            lastID = event.id
            lastIsGivenExit = true
            return nil
        }
    }

    /// Exclusive zones placed the subject here at `t`, decided by the sighting `id`.
    mutating func admit(id: String, at t: Int64) -> Change {
        open(at: t, id: id)
        presentUntil = t
        lastID = id
        lastIsGivenExit = false
        return .enter(id: id + "+enter", time: t)
    }

    /// Exclusive zones: a qualifying sighting of the room the subject is in keeps its stay alive.
    mutating func extend(id: String, at t: Int64) {
        guard isInside, presentUntil != Int64.max, t >= presentUntil else { return }
        presentUntil = t
        lastID = id
        lastIsGivenExit = false
    }

    /// Exclusive zones: the subject moved to another room at `t`, so this stay ends now.
    mutating func leave(at t: Int64) -> Change? {
        guard isInside else { return nil }
        isInside = false
        pendingDwells.removeAll()
        return .exit(id: lastIsGivenExit ? lastID : lastID + "+exit", time: t, departedAt: t)
    }

    private mutating func open(at t: Int64, id: String) {
        isInside = true
        hasHistory = true
        stayStart = t
        enterID = id
        pendingDwells.removeAll()
    }

    /// Schedules the dwell campaigns' lengths (ms) for the stay that just opened.
    mutating func scheduleDwells(_ lengths: [Int64]) {
        guard let start = stayStart else { return }
        pendingDwells = lengths.map { (start &+ $0, $0) }
    }

    /// Everything due at `clock` (ms): dwells the device stayed for, then a confirmed exit.
    package mutating func resolve(clock: Int64, exitTimeout: Int64, into changes: inout [Change]) {
        guard isInside else { return }
        while let first = pendingDwells.first, first.due <= clock, first.due <= presentUntil {
            pendingDwells.removeFirst()
            changes.append(.dwell(id: enterID + "+dwell" + String(first.dwell / 1000), time: first.due, dwell: first.dwell))
        }
        guard presentUntil != Int64.max else { return }
        let confirmed = presentUntil &+ exitTimeout
        guard confirmed <= clock else { return }
        isInside = false
        pendingDwells.removeAll()
        changes.append(.exit(id: lastIsGivenExit ? lastID : lastID + "+exit", time: confirmed, departedAt: presentUntil))
    }

    /// Whether forgetting this pair at `now` changes nothing it would decide: no open stay, nothing
    /// pending, and no input for `horizon` ms (longer than the smoothing and enter windows, so
    /// its readings would count for nothing). Only `hasHistory` goes with it: an exit without
    /// an enter, after that long, is taken as the end of a stay that began before, as for a pair
    /// never seen.
    func isForgettable(at now: Int64, after horizon: Int64) -> Bool {
        !isInside && pendingDwells.isEmpty && lastInput <= now &- horizon
    }

    /// When `resolve` next has something to do, if ever without more input.
    package func nextDue(exitTimeout: Int64) -> Int64? {
        guard isInside else { return nil }
        var next: Int64? = presentUntil == Int64.max ? nil : presentUntil &+ exitTimeout
        // Dwells beyond `presentUntil` wait for the device to be seen again (or for the exit).
        if let first = pendingDwells.first, first.due <= presentUntil { next = Swift.min(next ?? Int64.max, first.due) }
        return next
    }
}
