/// Matching: which of an event's candidate campaigns fire, against and into the store's state.
extension RulesEngine {
    /// Decides which campaigns fire for `event`, updates the state, and leaves them in `scratch.pending`
    /// sorted by fire date, then campaign.
    /// `knownDevice`, `knownBeacon`: the device's key and the beacon's number and run when
    /// already known (`prefetch`); looked up when nil.
    mutating func match(_ event: InPlaceEvent, knownDevice: Store.DeviceKey? = nil, knownBeacon: (number: Int32, run: UInt64)? = nil) {
        scratch.pending.removeAll()
        // The beacon's candidate lists through a pointer (no array retained per event); a
        // beacon past the index's limits has its candidates worked out into the scratch (rare).
        let indexed: UnsafeBufferPointer<Int32>?, fallback: [Int32]
        let range: Range<Int>
        let beacon: (Int, UInt64)?
        if let knownBeacon, knownBeacon.number >= 0 { beacon = (Int(knownBeacon.number), knownBeacon.run) } else { beacon = caches.candidateIndex.run(event.beacon, campaigns: campaigns, rows: table.rows) }
        if let (number, run) = beacon {
            scratch.beacon = number
            indexed = caches.candidateIndex.lists
            fallback = []
            range = CandidateIndex.range(run, event.kind)
        } else {
            scratch.beacon = -1
            campaigns.candidates(for: event.beacon, into: &scratch.candidates)
            indexed = nil
            fallback = scratch.candidates
            range = 0..<fallback.count
        }
        if range.isEmpty { return }
        let device = knownDevice ?? store.existingKey(deviceUTF8: event.device)
        // Three passes over up to `matchChunk` candidates at a time, so that the store is read
        // once for them and written only for what fires: the candidates the event's trigger (and
        // dwell) can fire, with the state keys of those that keep state; their last firings, asked
        // of the store at once; then the decisions, in candidate order (actions that share an eid
        // fire once: the first that fires). Writes wait until every candidate is decided: no
        // candidate reads a key another one writes (those that share a key share an eid).
        let bit = CompiledRule.bit(event.kind)
        let dwell = scratch.dwell
        let time = event.time.milliseconds
        // Read through pointers: the engine changes in this loop (its state, `scratch.pending`),
        // and an array of it read here would be retained and released for every event.
        let rows = table.rows, bounds = table.frameBounds
        withUnsafeTemporaryAllocation(of: Int32.self, capacity: Self.matchChunk) { live in
            withUnsafeTemporaryAllocation(of: Store.CampaignKey.self, capacity: Self.matchChunk) { keys in
                withUnsafeTemporaryAllocation(of: Int64?.self, capacity: Self.matchChunk) { lasts in
                    do {
                        do {
                            fallback.withUnsafeBufferPointer { fallback in
                                let candidates = indexed ?? fallback
                                var chunk = range.lowerBound
                                while chunk < range.upperBound {
                                    let chunkEnd = min(chunk + Self.matchChunk, range.upperBound)
                                    var liveCount = 0, stateful = 0
                                    for i in chunk..<chunkEnd {
                                        let index = candidates[i]
                                        let row = rows.baseAddress! + Int(index)
                                        if row.pointee.triggerMask & bit == 0 { continue }
                                        if bit == 1 && (dwell != 0 || row.pointee.waitsForDwell) && campaigns.rules[Int(index)].dwell != dwell { continue }
                                        live[liveCount] = index
                                        liveCount += 1
                                        if row.pointee.keepsState {
                                            (keys.baseAddress! + stateful).initialize(to: row.pointee.key)
                                            stateful += 1
                                        }
                                    }
                                    chunk = chunkEnd
                                    if liveCount == 0 { continue }
                                    if let device {
                                        store.lastFirings(device, UnsafeBufferPointer(start: keys.baseAddress, count: stateful), into: lasts.baseAddress!)
                                    } else {
                                        for k in 0..<stateful { lasts[k] = nil }
                                    }
                                    keys.baseAddress!.deinitialize(count: stateful)
                                    var k = 0
                                    for l in 0..<liveCount {
                                        let index = live[l]
                                        let row = rows.baseAddress! + Int(index)
                                        let keepsState = row.pointee.keepsState
                                        let last = keepsState ? lasts[k] : nil
                                        if keepsState { k += 1 }
                                        guard let fireDate = row.pointee.fireDate(time: time, last: last, bounds: bounds, rule: { campaigns.rules[Int(index)] }) else { continue }
                                        let idSlot = row.pointee.idSlot
                                        if scratch.pending.contains(idSlot: idSlot) { continue }
                                        scratch.pending.append(Firing(fireDate: fireDate, rank: row.pointee.rank, index: index, idSlot: idSlot, isSilent: row.pointee.isSilent, keepsState: keepsState))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        if scratch.pending.isEmpty { return }
        var deviceKey = device
        for i in 0..<scratch.pending.count where scratch.pending[i].keepsState {
            let firing = scratch.pending[i]
            let key = deviceKey ?? store.key(deviceUTF8: event.device)
            deviceKey = key
            store.recordFiring(key, rows[Int(firing.index)].key, at: event.time)
        }
        if scratch.pending.count > 1 { scratch.pending.sort() }
    }

    /// Candidates decided together (`match`): a fixed size, so the scratch lives on the stack.
    static var matchChunk: Int { 32 }
}
