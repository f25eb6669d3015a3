/// The way every input line goes, whoever reads it: `replay` feeds it lines from files, the
/// server lines from its connections, and each takes the answers from `output`.
///
/// Lines are appended to a batch and applied in order a batch at a time (`applyBatch`), after the
/// engine has prefetched what the batch's beacon events will read (`RulesEngine.prefetch`). Each
/// line is routed once, here: a beacon event to the rules (or, under flicker control, to the
/// presence layer), a sighting to the presence layer, a response to the delivery ledger's
/// handlers, an outbox request to the log. A line whose id names the event (`identified`) is
/// looked up in the answer log first: seen before, it is answered as before and changes nothing;
/// new, its records are remembered with it. `settle` is the one place per transaction for
/// periodic work (the ledger's changes saved, the clock moved on).
///
/// Invariants: the lines of a batch are applied in the order they were appended, each exactly
/// once; the beacon events in `events` are those of the batch's lines, in order. No I/O: the log
/// and the output are the caller's, and so are the transactions around `applyBatch` and `settle`.
/// Not thread-safe: one owner makes every call.
public final class LinePipeline<Store: SuppressionStore, Log: AnswerLog, Output: LineOutput> {
    /// `@exclusivity(unchecked)`, as the batch below.
    @exclusivity(unchecked) public var engine: PresenceEngine<Store>
    /// Where answered events, the ledger, presence and the outbox are kept.
    public let log: Log
    /// Where each line's outcome goes, in line order.
    @exclusivity(unchecked) public var output: Output
    /// How records are written: SPEC records or APNs payloads.
    public let format: OutputFormat
    /// Lines for the presence layer are logged by id with what they yield at once (the server:
    /// a resent line gets the same answer). Off (`replay`), they are not logged: their records
    /// come later, at event time.
    @usableFromInline let logsPresenceInput: Bool
    /// Non-nil: every response line is refused with this message (`replay --no-responses`).
    @usableFromInline let refusal: String?
    /// The presence layer took input since `settle` last saved its state.
    @usableFromInline var presenceChanged = false

    /// The batch: its lines in order, and its beacon events read in place (no `String` per
    /// field), for the prefetch and the rules to read.
    ///
    /// `@exclusivity(unchecked)`: one owner makes every call (see the type's invariants), and
    /// run-time checks of each access were 2% of `replay`'s profile on the benchmark.
    @exclusivity(unchecked) @usableFromInline var queued: [QueuedLine] = []
    @exclusivity(unchecked) @usableFromInline var events = InPlaceEventBatch()
    @usableFromInline var inputs: [InputLine] = []
    @usableFromInline var messages: [String] = []
    @usableFromInline var ids: [String] = []
    /// What fired on the clock in `settle`, reused.
    var fired = JSONWriter(capacity: 1 << 12)
    /// How long answers, suppression state and deliveries are remembered (SPEC section 5).
    public var retention: Retention {
        didSet { engine.engine.ledger.responseWindow = retention.responseWindow }
    }
    /// The newest event time (ms) of any line applied: the event-time clock of retention.
    public internal(set) var newestEventTime = Int64.min
    /// The driver's wall clock (`setWallClock`): answers are stamped with it and forgotten by it.
    var wallClock: Timestamp?
    /// Lines applied since `settle` last forgot: each step of forgetting looks at a few per line.
    @usableFromInline var appliedSinceSettle = 0
    /// Calls of `forgetExpired`: a shared log's own sweep of the saved ledger runs every
    /// `savedLedgerSweepEvery`th.
    var forgetCalls = 0
    /// Which suppression state is still needed, for the loaded campaigns.
    var firingExpiry: FiringExpiry

    /// A pipeline that routes lines into `engine`, keeps answers in `log` and hands each line's
    /// outcome to `output`. `logsPresenceInput`: presence lines are logged by id (a server);
    /// `refusal`: responses are refused with this message (no ledger); `retention` bounds what
    /// is kept (SPEC section 5).
    public init(
        engine: PresenceEngine<Store>, log: Log, output: Output, format: OutputFormat = .records,
        logsPresenceInput: Bool, refusingResponses refusal: String? = nil, retention: Retention = .default
    ) {
        self.retention = retention
        self.firingExpiry = FiringExpiry(campaigns: engine.engine.campaigns, generation: 0)
        self.engine = engine
        self.engine.engine.ledger.responseWindow = retention.responseWindow
        self.log = log
        self.output = output
        self.format = format
        self.logsPresenceInput = logsPresenceInput
        self.refusal = refusal
        if refusal != nil { self.engine.engine.ledger.isEnabled = false }
        queued.reserveCapacity(Self.batchSize)
    }

    /// Lines per batch: the prefetch's width.
    @inlinable public static var batchSize: Int { PrefetchWindowWidth.events }

    /// The batch should be applied now: it holds `batchSize` lines, or so many bytes of events
    /// (lines of at most 16 MiB keep a batch far below its 2 GiB) that memory would not stay flat.
    @inlinable public var isBatchFull: Bool { queued.count >= Self.batchSize || events.byteCount >= 1 << 26 }

    // MARK: - Lines in

    /// Reads a line in the usual layout (SPEC section 2, keys in order, no white space) straight
    /// into the batch; false: it is not in that layout (parse it and `append` it). The usual
    /// layout always has an `id`.
    @inlinable public func appendUsualLayout(_ bytes: UnsafeBufferPointer<UInt8>, line: Int) -> Bool {
        guard events.appendUsualLayout(bytes) else { return false }
        queued.append(QueuedLine(kind: .event(events.count - 1), line: line, identified: true))
        return true
    }

    /// A parsed line. `identified`: its id names the event rather than its place in a source.
    public func append(_ input: InputLine, line: Int, identified: Bool) {
        ids.append(input.id)
        if case .beacon(let event) = input, events.canHold(event) {
            queued.append(QueuedLine(kind: .event(events.count), line: line, identified: identified, id: ids.count - 1))
            events.append(event)
        } else {
            queued.append(QueuedLine(kind: .input(inputs.count), line: line, identified: identified, id: ids.count - 1))
            inputs.append(input)
        }
    }

    /// `{"type":"outbox","after":N}`: answered with the records that fired on the clock after N.
    public func appendOutboxRequest(after: Int64, line: Int) {
        queued.append(QueuedLine(kind: .outbox(after: after), line: line, identified: false))
    }

    /// A line that is not input: answered with `message`, in its place among the batch's lines.
    public func appendRejected(_ message: String, line: Int) {
        queued.append(QueuedLine(kind: .rejected(messages.count), line: line, identified: false))
        messages.append(message)
    }

    // MARK: - Applying

    /// Applies the batch's lines in order, their answers to `output`, and empties the batch.
    /// Returns how many lines it applied.
    @inlinable @discardableResult
    public func applyBatch() -> Int {
        let count = queued.count
        if count == 0 { return 0 }
        let direct = !engine.settings.flickerControl
        if direct && events.count > 1 { engine.engine.prefetch(events) }
        appliedSinceSettle += count
        for q in queued.indices {
            let line = queued[q]
            switch line.kind {
            case .event(let i):
                noteEventTime(events[i].time.milliseconds)
                if direct {
                    applyToRules(line, batchIndex: i)
                } else {
                    applyToPresence(.beacon(events[i].event), line)
                }
            case .input(let k):
                noteEventTime(Self.time(of: inputs[k]))
                switch inputs[k] {
                case .beacon(let event):
                    if direct { applyToRules(line, event: event) } else { applyToPresence(.beacon(event), line) }
                case .sighting(let sighting, let typeColumn):
                    applyToPresence(.sighting(sighting, typeColumn: typeColumn), line)
                case .response(let response):
                    apply(response, line)
                }
            case .outbox(let after):
                do { output.outbox(try log.outbox(after: after, limit: 1000), after: after) } catch {
                    output.rejected(line: line.line, message: "cannot read the outbox: \(error)")
                }
            case .rejected(let k):
                output.rejected(line: line.line, message: messages[k])
            }
        }
        queued.removeAll(keepingCapacity: true)
        events.removeAll()
        if !inputs.isEmpty { inputs.removeAll(keepingCapacity: true) }
        if !messages.isEmpty { messages.removeAll(keepingCapacity: true) }
        if !ids.isEmpty { ids.removeAll(keepingCapacity: true) }
        return count
    }

    /// Moves the event-time clock (`newestEventTime`) on to `time` if it is later. Not inlined:
    /// the clock's setter stays internal.
    @usableFromInline func noteEventTime(_ time: Int64) {
        if time > newestEventTime { newestEventTime = time }
    }

    /// The line's id: the one it came with, or its event's in the batch.
    @usableFromInline func id(of line: QueuedLine) -> String {
        if line.id >= 0 { return ids[line.id] }
        if case .event(let i) = line.kind { return String(decoding: events[i].id, as: UTF8.self) }
        return ""
    }

    /// A beacon event straight to the rules: from the batch (`batchIndex`, starting from what the
    /// prefetch found) or, too large for it, as a value (`event`).
    @inlinable func applyToRules(_ line: QueuedLine, batchIndex: Int = -1, event: BeaconEvent? = nil) {
        let logged = log.remembers && line.identified
        if logged, let answered = log.answer(event: id(of: line)) {
            output.answered(event: id(of: line), records: answered)
            return
        }
        // Read only for the log: through another module's output (`replay`'s), the read is a
        // call that copies the writer and destroys the copy, some 90 instructions a line.
        let start = logged ? output.records.bytes.count : 0
        if format == .records {
            if batchIndex >= 0 {
                engine.engine.write(events, at: batchIndex, into: &output.records)
            } else if let event {
                engine.engine.write(event, into: &output.records)
            }
        } else {
            let event = event ?? events[batchIndex].event
            _ = try? engine.engine.apply(.beacon(event), format: format, into: &output.records)
        }
        if logged { remember(id(of: line), from: start) }
        output.accepted(event: self.id(of: line))
    }

    /// A response to a delivered record: to the delivery ledger and the action handlers.
    @usableFromInline func apply(_ response: ResponseEvent, _ line: QueuedLine) {
        if let refusal {
            output.rejected(line: line.line, message: refusal)
            return
        }
        let logged = log.remembers && line.identified
        if logged, let answered = log.answer(event: response.id) {
            output.answered(event: response.id, records: answered)
            return
        }
        let start = output.records.bytes.count
        do throws(EventError) {
            if let unhandled = try engine.engine.apply(.response(response), format: format, into: &output.records) {
                output.unhandled(unhandled, line: line.line)
            }
        } catch {
            // Not logged as answered: the same response after its record arrives is taken then.
            output.rejected(line: line.line, message: error.description)
            return
        }
        if logged { remember(response.id, from: start) }
        output.accepted(event: response.id)
    }

    /// A line for the presence layer: answered with whatever its event time makes happen (records
    /// of any device whose exit or dwell came due by then, withdrawals included).
    @usableFromInline func applyToPresence(_ input: InputEvent, _ line: QueuedLine) {
        let logged = log.remembers && line.identified && logsPresenceInput
        if logged, let answered = log.answer(event: id(of: line)) {
            output.answered(event: id(of: line), records: answered)
            return
        }
        guard mayTakePresence(line) else { return }
        let start = output.records.bytes.count
        do throws(EventError) { try engine.add(input, into: &output.records) } catch {
            output.rejected(line: line.line, message: error.description)
            return
        }
        presenceChanged = true
        if logged { remember(id(of: line), from: start) }
        output.accepted(event: self.id(of: line))
    }

    /// Logs the records written from `start` on as the answer to `id`.
    @usableFromInline func remember(_ id: String, from start: Int) {
        if start == 0 {
            log.remember(event: id, written: output.records, holding: engine.engine.referencedStorage)
        } else {
            // Records after others' are never collected as references (see `LineOutput.records`):
            // a referenced run of this line's would be missing from the copy.
            precondition((output.records.references.last?.at ?? -1) < start, "a LineOutput that collects references must empty `records` after each line")
            log.remember(event: id, records: Array(output.records.bytes[start...]))
        }
    }
}
