extension PresenceLayer {
    /// Slots the sweep of idle pairs looks at per input since the last clock step, and per
    /// step that came with no input (a server's clock, once a second when nothing arrives): a
    /// sweep over N slots is done before N/4 more inputs came (so before the pairs could grow by
    /// more than a quarter), and a step with input forgets at most four pairs an input. A floor
    /// per step with input would not do: a server steps its clock after every batch, a
    /// millisecond's worth of input at 20,000 sightings/s, and a floor of 1,024 slots a step
    /// forgot 1,024 pairs a millisecond at the start of a sweep, more than the owner could do
    /// while the input went on (batches of 10-85 ms, replies late by 0.1-0.2 s,
    /// `SweepPaceTests`).
    static var sweepStep: Int { 1_024 }
    static var sweptPerInput: Int { 4 }

    /// A slice of the sweep of idle pairs: looks at up to `limit` slots from where the sweep under
    /// way stopped (a new sweep from the first slot) and forgets the pairs idle at `now`
    /// (`PresenceTracker.isForgettable`: no open stay, nothing pending, no input for
    /// `idleHorizon`), freeing their slots for new pairs; every other pair's state stays as it is,
    /// in its slot, with its timers. Not while a device runs behind the stream on a lane of its
    /// own (replay), whose lanes name devices by index.
    ///
    /// A sweep starts when the pairs held reach `sweepAt`, which becomes twice the pairs kept
    /// when it ends: each sweep reads every slot, so sweeping costs a constant per pair added. A
    /// sweep used to read and rebuild every pair at once (keys, trackers, the key index, timers
    /// and zones renumbered): at 100,000 pairs a pause of tens of milliseconds for the one owner.
    /// A pair forgotten one slice later than it would have been all at once decides nothing
    /// differently: it was idle (`IdlePairsTests`).
    package mutating func forgetIdlePairs(at now: Int64, limit: Int) {
        guard lanes.isEmpty, now != Int64.min else { return }
        let horizon = Swift.max(
            idleHorizon, settings.smoothingWindowMilliseconds, settings.enterWindowMilliseconds,
            settings.exitTimeoutMilliseconds &+ settings.maxLatenessMilliseconds)
        var slot = sweepNext ?? 0
        let end = limit >= pairKeys.count - slot ? pairKeys.count : slot + limit
        while slot < end {
            if serials[slot] >= 0 && trackers[slot].isForgettable(at: now, after: horizon) { forgetPair(slot) }
            slot += 1
        }
        if slot < pairKeys.count {
            sweepNext = slot
            return
        }
        sweepNext = nil
        sweepAt = Swift.max(Self.firstSweep, 2 * pairCount)
        // No lane is open and none will be (the clock has moved on): device names are not needed.
        if !deviceIndex.isEmpty { deviceIndex = [:] }
    }

    /// A whole sweep at once (tests, and a layer that must be small now).
    package mutating func forgetIdlePairs(at now: Int64) {
        guard lanes.isEmpty, now != Int64.min else { return }
        sweepNext = 0
        forgetIdlePairs(at: now, limit: Int.max)
    }

    /// Frees the slot of a pair: its key, tracker and zone place go; its timers are stale.
    private mutating func forgetPair(_ slot: Int) {
        pairsForgotten &+= 1
        let key = pairKeys[slot]
        if let place = keyIndex.place(hash: Self.hash(key), where: { $0.number == slot }) { keyIndex.remove(at: place) }
        zones?.remove(key, pair: slot, settings: settings)
        trackers[slot] = PresenceTracker(settings: settings)
        serials[slot] = -1
        scheduledAt[slot] = Int64.max
        freeSlots.append(slot)
    }
}

extension ExclusiveZones {
    /// Forgets pair `pair` (its key `key`): the others of its zone keep their order and their
    /// decisions; a zone left with no pair (its subject not heard for long) goes, its number
    /// given to the next new subject.
    mutating func remove(_ key: PresenceKey, pair: Int, settings: PresenceSettings) {
        let zone = zoneOf[pair]
        zones[zone].pairs.removeAll { $0 == pair }
        if zones[zone].present == pair { zones[zone].present = nil }
        if zones[zone].challenger == pair { zones[zone].challenger = nil }
        zoneOf[pair] = -1
        gates[pair] = PresenceTracker(settings: settings)
        if zones[zone].pairs.isEmpty {
            zoneIndex[subject.subject(of: key)] = nil
            zones[zone] = Zone()
            freeZones.append(zone)
        }
    }
}
