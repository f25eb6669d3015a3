package import BeaconRules
package import BeaconRulesStore
import PostgresNIO

/// Retention in the database (SPEC section 5), as in the SQLite file: answers and outbox entries
/// by the wall clock they were stamped with (oldest first, by their `at` index), suppression state
/// by a sweep over `firing` in key order, a few hundred rows per commit. Space is given back by
/// PostgreSQL's autovacuum.
extension PostgresStateStore {
    package func setClock(_ now: Timestamp) { clock = now.milliseconds }

    package func forgetAnswers(before time: Timestamp, limit: Int) throws(StoreError) -> Int {
        if let failure { throw failure }
        let cutoff = time.milliseconds, limit = Int64(limit)
        let answers = try session.run("""
            DELETE FROM answered WHERE event IN (SELECT event FROM answered WHERE at < \(cutoff) ORDER BY at LIMIT \(limit))
            """).metadata.rows ?? 0
        let outbox = try session.run("""
            DELETE FROM outbox WHERE seq IN (SELECT seq FROM outbox WHERE at < \(cutoff) ORDER BY seq LIMIT \(limit))
            """).metadata.rows ?? 0
        return answers + outbox
    }

    /// The next `limit` rows of `firing` after the last step's, those of them expired deleted.
    /// A row is deleted only with the time it was read with: a firing another instance recorded
    /// since (its device is not locked here) stays.
    package func forgetFirings(_ expiry: FiringExpiry, limit: Int) -> Int {
        guard let rows = runNoting("""
            SELECT device, campaign, time FROM firing WHERE (device, campaign) > (\(firingSweep.0), \(firingSweep.1))
            ORDER BY device, campaign LIMIT \(Int64(limit))
            """)?.rows else { return 0 }
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
        let deleted = runNoting("""
            DELETE FROM firing f USING unnest(\(devices)::text[], \(campaigns)::text[], \(times)::bigint[]) AS x(d, c, t)
            WHERE f.device = x.d AND f.campaign = x.c AND f.time = x.t
            """)
        return deleted?.metadata.rows ?? 0
    }
}
