/// Writes an event's records as JSON lines: each head joined from runs rendered once
/// (`RecordHead`: the campaign's at load, the event's once per event), then its tail, cached
/// (`TailCache`) or rendered for this record.
///
/// Invariant: after `prepare(event)`, `eventHead` is that event's, until the next `prepare`; the
/// campaign heads never change after init. It decides nothing: the firings come ordered and decided.
struct RecordJoiner {
    private let campaignHeads: CampaignHeads
    private var eventHead = EventHead()
    /// Where `join` joins the heads before appending them (reused).
    private var scratch: [UInt8] = []

    init(_ campaigns: CampaignSet) {
        campaignHeads = CampaignHeads(campaigns)
    }

    /// Renders the event's head runs for the records `join` writes next.
    mutating func prepare(_ event: InPlaceEvent) { eventHead.prepare(event) }

    /// The prepared event's `:DEVICE:EVENT` as given (the end of its records' ids), as the head's
    /// bytes and where in them; nil when the head holds it escaped.
    var unescapedIDClosing: (bytes: [UInt8], range: Range<Int>)? {
        eventHead.idClosingIsUnescaped ? (eventHead.bytes, eventHead.idClosing) : nil
    }

    /// Appends `firings`' records: each head joined from its campaign's runs and the event's, then
    /// its tail (in `tails` when cached, else `uncached[i]`), referenced when the writer collects
    /// references, else copied. Heads are joined in the scratch with plain copies and appended at
    /// once, up to a tail that is copied: that goes straight from the cache into the writer.
    @inline(__always)
    mutating func join(_ firings: FiringList, eventTime: Int64, uncached: [Int: [UInt8]]?, tails: StableByteArena, into writer: inout JSONWriter) {
        var joined: [UInt8] = []
        swap(&joined, &scratch)
        join(firings, eventTime: eventTime, uncached: uncached, tails: tails, scratch: &joined, into: &writer)
        swap(&joined, &scratch)
    }

    @inline(__always)
    private func join(_ firings: FiringList, eventTime: Int64, uncached: [Int: [UInt8]]?, tails: StableByteArena, scratch: inout [UInt8], into writer: inout JSONWriter) {
        let offsets = campaignHeads.offsets
        // Room for every head: the campaign's runs, the event's, and a fire date of its own.
        var needed = 0
        for i in 0..<firings.count {
            let k = Int(firings[i].index) * 2
            needed += offsets[k + 2] - offsets[k] + eventHead.time.upperBound + Timestamp.longestRFC3339
        }
        if scratch.count < needed { scratch = [UInt8](repeating: 0, count: max(needed, scratch.count * 2)) }
        scratch.withUnsafeMutableBufferPointer { out in
            campaignHeads.bytes.withUnsafeBufferPointer { heads in
                eventHead.bytes.withUnsafeBufferPointer { own in
                    tails.withChunks { chunks in
                        var c = ByteCursor(out.baseAddress!)
                        /// Appends the heads joined so far and starts the scratch again.
                        func flush() {
                            writer.bytes.append(contentsOf: c.written)
                            c.rewind()
                        }
                        let idClosing = UnsafeBufferPointer(rebasing: own[eventHead.idClosing])
                        let fields = UnsafeBufferPointer(rebasing: own[eventHead.fields])
                        let fieldsAndTime = UnsafeBufferPointer(rebasing: own[eventHead.fields.lowerBound..<eventHead.time.upperBound])
                        for i in 0..<firings.count {
                            let firing = firings[i]
                            let k = Int(firing.index) * 2
                            c.copy(UnsafeBufferPointer(rebasing: heads[offsets[k]..<offsets[k + 1]]))
                            c.copy(idClosing)
                            c.copy(UnsafeBufferPointer(rebasing: heads[offsets[k + 1]..<offsets[k + 2]]))
                            if firing.fireDate == eventTime {
                                c.copy(fieldsAndTime)
                            } else {
                                c.copy(fields)
                                RecordHead.writeFireDate(&c, Timestamp(milliseconds: firing.fireDate))
                            }
                            if let reference = firing.tail {
                                let tail = chunks.bytes(reference)
                                if writer.refers(tail) {
                                    writer.appendReference(at: writer.bytes.count + c.count, tail)
                                } else {
                                    flush()
                                    writer.bytes.append(contentsOf: tail)
                                }
                            } else {
                                flush()
                                writer.bytes.append(contentsOf: uncached![i]!)
                            }
                        }
                        flush()
                    }
                }
            }
        }
    }
}
