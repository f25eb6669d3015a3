package import BeaconRules
package import BeaconRulesStore
import NIOCore
import PostgresNIO

/// The batch's state: read before the engine runs (`prepare(_:)`, `lock(devices:answersOf:)`),
/// then read and changed in memory by the engine's synchronous calls. A read of what was not
/// loaded is answered as empty and noted as a miss (`takeMisses()`).
extension PostgresStateStore {
    /// Reads everything `reads` names inside the open transaction: its devices locked (those not
    /// locked yet, in the order of their hashes) and loaded with its answers, then the ledger lines
    /// its responses name (under those locks), its outbox requests, and the presence lock with
    /// the saved presence state. Called before the transaction's lines are applied.
    nonisolated(nonsending) package func prepare(_ reads: TransactionReads) async throws(StoreError) {
        try await lock(devices: reads.devices, answersOf: reads.answers)
        if !reads.ledgerLinesOf.isEmpty {
            let ids = reads.ledgerLinesOf.filter { !prepared.ledgerLinesOf.contains($0) }
            if !ids.isEmpty {
                prepared.ledgerLines = try await readLedgerLines(naming: Array(prepared.ledgerLinesOf) + ids)
                prepared.ledgerLinesOf.formUnion(ids)
            }
        }
        for after in Set(reads.outboxAfter) where prepared.outbox[after] == nil {
            prepared.outbox[after] = try await readOutbox(after: after, limit: Self.outboxLimit)
        }
        if reads.presence && !prepared.presence { try await preparePresence() }
    }

    /// Locks `devices` for the rest of the transaction (those not locked yet, in the order of
    /// their hashes) and loads their firings, and loads the answers of event ids `ids`.
    nonisolated(nonsending) package func lock(devices batch: [String], answersOf ids: [String]) async throws(StoreError) {
        var new = Set<String>()
        for device in batch where devices[device] == nil { new.insert(device) }
        if !new.isEmpty {
            let hashes = Array(Set(new.map { Self.lockKey($0, app: app) })).sorted()
            // unnest yields the (sorted) array in order: the locks are taken in that order.
            try await session.run("SELECT pg_advisory_xact_lock(h) FROM unnest(\(hashes)::bigint[]) AS t(h)")
            let list = Array(new)
            let rows = try await session.run("SELECT device, campaign, time FROM firing WHERE app = \(app) AND device = ANY(\(list)::text[])")
            for device in list { devices[device] = [:] }
            do {
                for row in rows {
                    let (device, campaign, time) = try row.decode((String, String, Int64).self)
                    devices[device, default: [:]][campaign] = time
                }
            } catch {
                throw StoreError(path: location.description, message: "cannot read the firing table: \(PostgresSession.describe(error))")
            }
        }
        let unknown = Array(Set(ids.filter { answerCache[$0] == nil && !unanswered.contains($0) }))
        if !unknown.isEmpty {
            let rows = try await session.run("SELECT event, records FROM answered WHERE app = \(app) AND event = ANY(\(unknown)::text[])")
            unanswered.formUnion(unknown)
            do {
                for row in rows {
                    let (event, records) = try row.decode((String, ByteBuffer).self)
                    answerCache[event] = Array(records.readableBytesView)
                    unanswered.remove(event)
                }
            } catch {
                throw StoreError(path: location.description, message: "cannot read the answered table: \(PostgresSession.describe(error))")
            }
        }
    }

    /// The engine's batch: its devices and ids not loaded are noted as misses (the driver
    /// prepares a batch's reads before applying it; what it did not name is read on the retry).
    package func prefetch(devicesOf events: borrowing InPlaceEventBatch, keys: inout [String?]) -> UInt64 {
        var missed: UInt64 = 0
        for i in 0..<events.count {
            let event = events[i]
            let device = String(decoding: event.device, as: UTF8.self)
            if devices[device] == nil {
                misses.devices.append(device)
                missed += 1
            }
        }
        return missed
    }

    /// The advisory lock of a device of the app numbered `app`: FNV-1a of its UTF-8 bytes, the
    /// same in every process (the standard library's hash is seeded per process), then of the
    /// app's number for an app other than `default` (whose keys are those of before apps). Two
    /// devices may share a lock: they then wait for each other, which is correct, only less
    /// parallel.
    static func lockKey(_ device: String, app: Int32 = 0) -> Int64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in device.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        if app != 0 {
            for byte in withUnsafeBytes(of: app.littleEndian, Array.init) {
                hash ^= UInt64(byte)
                hash &*= 0x0000_0100_0000_01b3
            }
        }
        return Int64(bitPattern: hash)
    }

    /// The device's firings as loaded; nil (and a miss) when the transaction did not load it.
    private func firings(of device: String) -> [String: Int64]? {
        if let loaded = devices[device] { return loaded }
        misses.devices.append(device)
        return nil
    }

    // MARK: - Suppression state

    /// The device's last firing of `campaign`, from memory.
    package func lastFiring(device: String, campaign: CampaignID) -> Timestamp? {
        firings(of: device)?[campaign.canonical].map(Timestamp.init(milliseconds:))
    }

    /// Records a firing in memory, written back by `commit()`.
    package func recordFiring(device: String, campaign: CampaignID, at time: Timestamp) {
        guard firings(of: device) != nil else { return }
        devices[device, default: [:]][campaign.canonical] = time.milliseconds
        changed[device, default: [:]][campaign.canonical] = time.milliseconds
    }

    // MARK: - Answered events

    /// The answer of `id`, from memory; nil (and a miss) when the transaction did not load it.
    package func answer(event id: String) -> [UInt8]? {
        if let answer = answerCache[id] { return answer }
        if !unanswered.contains(id) { misses.answers.append(id) }
        return nil
    }

    /// Keeps the answer in memory, written back by `commit()`.
    package func remember(event id: String, records: [UInt8]) {
        answerCache[id] = records
        unanswered.remove(id)
        given.append((id, records))
    }
}
