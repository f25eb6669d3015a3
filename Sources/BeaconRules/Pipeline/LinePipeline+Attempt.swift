/// For a driver whose store reads ahead of the engine and may run a transaction twice (the
/// PostgreSQL store: *prepare async, decide sync, commit async*): what the batch will read, named
/// before it is applied, and what an attempt changes in the pipeline's memory, taken back before
/// the same lines are applied again. Nothing here does I/O.
extension LinePipeline {
    /// What the lines waiting in the batch (appended, not applied yet) will read: their
    /// devices, event ids, response records and outbox requests, and presence when presence input
    /// may come or the layer holds anything.
    package func batchReads() -> TransactionReads {
        var reads = TransactionReads()
        reads.presence = !engine.layer.isIdle || engine.settings.flickerControl
        for line in queued {
            switch line.kind {
            case .event(let i):
                reads.devices.append(String(decoding: events[i].device, as: UTF8.self))
                reads.answers.append(String(decoding: events[i].id, as: UTF8.self))
            case .input(let k):
                reads.add(inputs[k])
            case .outbox(let after):
                reads.outboxAfter.append(after)
            case .rejected:
                break
            }
        }
        return reads
    }

    /// What an attempt may change in the pipeline besides its store, as it is now; called once
    /// per transaction, before its first attempt. From here the action handlers' outputs are kept
    /// for the transaction's attempts (`RulesEngine.handlerOutputs`): a handler may act beyond
    /// the pipeline (a host's own), and an attempt run again must not run it a second time.
    package func checkpoint() -> PipelineCheckpoint<Store> {
        engine.engine.handlerOutputs = [:]
        return PipelineCheckpoint(
            ledger: engine.engine.ledger, presence: engine.layer, delayed: engine.delayed, newestEventTime: newestEventTime, appliedSinceSettle: appliedSinceSettle,
            forgetCalls: forgetCalls, presenceChanged: presenceChanged)
    }

    /// Puts back what `checkpoint()` took: the attempt since is undone in memory (its store's
    /// transaction was rolled back). The handlers' outputs stay, for the next attempt.
    package func restore(_ checkpoint: PipelineCheckpoint<Store>) {
        engine.engine.ledger = checkpoint.ledger
        engine.layer = checkpoint.presence
        engine.delayed = checkpoint.delayed
        newestEventTime = checkpoint.newestEventTime
        appliedSinceSettle = checkpoint.appliedSinceSettle
        forgetCalls = checkpoint.forgetCalls
        presenceChanged = checkpoint.presenceChanged
    }
}

/// A `LinePipeline`'s memory as an attempt at a transaction found it (`checkpoint()`): the
/// delivery ledger and the presence layer (values: kept as they were, not copied until changed)
/// and the counters of `settle`.
package struct PipelineCheckpoint<Store: SuppressionStore> {
    let ledger: DeliveryLedger
    let presence: PresenceLayer
    let delayed: [PresenceKey: [PresenceEngine<Store>.DelayedRecord]]
    let newestEventTime: Int64
    let appliedSinceSettle: Int
    let forgetCalls: Int
    let presenceChanged: Bool
}
