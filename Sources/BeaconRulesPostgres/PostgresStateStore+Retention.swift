package import BeaconRules
package import BeaconRulesStore
import PostgresNIO

/// Retention in the database (SPEC section 5), as in the SQLite file: answers and outbox entries
/// by the wall clock they were stamped with (oldest first, by their `at` index), suppression state
/// by a sweep over `firing` in key order, a few hundred rows per commit. The pipeline asks for
/// each step synchronously in `settle`; the step runs at `commit()`, inside the transaction, in
/// the order asked (so the counts returned here are 0). Space is given back by PostgreSQL's
/// autovacuum.
extension PostgresStateStore {
    /// Answers and outbox entries from now on are stamped with `now`.
    package func setClock(_ now: Timestamp) { clock = now.milliseconds }

    /// A step of the answer retention (`deleteAnswers`), run at `commit()`.
    package func forgetAnswers(before time: Timestamp, limit: Int) throws(StoreError) -> Int {
        pending.writes.append(.forgetAnswers(before: time.milliseconds, limit: limit))
        return 0
    }

    /// Deletes at most `limit` answers and `limit` outbox entries stamped before `cutoff` (ms),
    /// whatever their app (the answer retention is the wall clock's, the same for every app of a
    /// database: instances sharing one run with the same `--answer-retention`); returns how many.
    nonisolated(nonsending) func deleteAnswers(before cutoff: Int64, limit: Int) async throws(StoreError) -> Int {
        let limit = Int64(limit)
        let answers = try await session.run("""
            DELETE FROM answered WHERE (app, event) IN (SELECT app, event FROM answered WHERE at < \(cutoff) ORDER BY at LIMIT \(limit)) RETURNING 1
            """).count
        let outbox = try await session.run("""
            DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE at < \(cutoff) ORDER BY seq LIMIT \(limit)) RETURNING 1
            """).count
        return answers + outbox
    }

    /// A step of the sweep over `firing` (`sweepFirings`), run at `commit()`.
    package func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int {
        pending.writes.append(.forgetFirings(expiry, limit: limit))
        return 0
    }

    /// The next `limit` rows of `firing` after the last step's, those of them expired deleted.
    /// A row is deleted only with the time it was read with: a firing another instance recorded
    /// since (its device is not locked here) stays.
    nonisolated(nonsending) func sweepFirings(_ expiry: FiringExpiry, limit: Int) async throws(StoreError) -> Int {
        let rows = try await session.run("""
            SELECT device, campaign, time FROM firing WHERE (app, device, campaign) > (\(app), \(firingSweep.0), \(firingSweep.1)) AND app = \(app)
            ORDER BY app, device, campaign LIMIT \(Int64(limit))
            """)
        var devices: [String] = [], campaigns: [String] = [], times: [Int64] = []
        var seen = 0
        for row in rows {
            guard let (device, campaign, time) = try? row.decode((String, String, Int64).self) else { continue }
            seen += 1
            firingSweep = (device, campaign)
            if expiry.isExpired(campaign: CampaignID(canonical: campaign), time: time) {
                devices.append(device)
                campaigns.append(campaign)
                times.append(time)
            }
        }
        // The end of the table: the next step starts again from its beginning.
        if seen < limit { firingSweep = ("", "") }
        if devices.isEmpty { return 0 }
        return try await session.run("""
            DELETE FROM firing f USING unnest(\(devices)::text[], \(campaigns)::text[], \(times)::bigint[]) AS x(d, c, t)
            WHERE f.app = \(app) AND f.device = x.d AND f.campaign = x.c AND f.time = x.t RETURNING 1
            """).count
    }
}
