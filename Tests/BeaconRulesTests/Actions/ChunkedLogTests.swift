@testable import BeaconRules
import Testing

/// The delivery ledger's append-only log: order kept across chunks, emptied and filled again.
struct ChunkedLogTests {
    @Test(arguments: [0, 1, 3, 4, 5, 12, 1_000])
    func elementsComeBackInAppendOrderAcrossChunks(count: Int) {
        var log = ChunkedLog<Int>(chunkCapacity: 4)
        for i in 0..<count { log.append(i) }
        #expect(log.count == count)
        #expect(log.isEmpty == (count == 0))
        #expect(Array(log) == Array(0..<count))
    }

    @Test func aLogEmptiedAndFilledAgainHoldsOnlyTheNewElements() {
        var log = ChunkedLog<Int>(chunkCapacity: 3)
        for i in 0..<10 { log.append(i) }
        log.removeAll()
        #expect(log.isEmpty)
        #expect(Array(log).isEmpty)
        for i in 100..<107 { log.append(i) }
        #expect(log.count == 7)
        #expect(Array(log) == Array(100..<107))
    }

    /// An empty ledger whose one rule (campaign slot 0, language 0) can take deliveries.
    static func ledgerOfOneRule() -> DeliveryLedger {
        var ledger = DeliveryLedger()
        ledger.prepareRuleTables(rules: 1)
        ledger.ruleSlots[0] = 0
        ledger.setLanguage(0, rule: 0, locale: 0, trigger: .enter)
        return ledger
    }

    @Test func theLedgerCountsEachDeliveredIdOnceAcrossChunks() {
        var ledger = Self.ledgerOfOneRule()
        for i in 0..<70_000 {
            ledger.deliverLater(key: UInt64(i % 65_000), rule: 0, locale: 0, beacon: 0, trigger: .enter, fireDate: 0)
        }
        #expect(ledger.count == 65_000)
        ledger.catchUp()
        #expect(ledger.unindexed.isEmpty)
        #expect(ledger.entries.count == 65_000)
    }

    /// `indexedCount()` (what a server's metrics ask once a second) gives what `count` gives,
    /// repeated ids once, and leaves the ledger indexed: later deliveries, repeats of indexed ids
    /// among them, are counted as they come.
    @Test func theIndexedCountIsTheCountAndIndexesInPlace() {
        var ledger = Self.ledgerOfOneRule()
        for i in 0..<1_000 {
            ledger.deliverLater(key: UInt64(i % 700), rule: 0, locale: 0, beacon: 0, trigger: .enter, fireDate: 0)
        }
        #expect(ledger.count == 700)
        #expect(ledger.indexedCount() == 700)
        #expect(ledger.unindexed.isEmpty)
        for i in 600..<900 {
            ledger.deliverLater(key: UInt64(i), rule: 0, locale: 0, beacon: 0, trigger: .enter, fireDate: 0)
        }
        #expect(ledger.count == 900)
        #expect(ledger.indexedCount() == 900)
        #expect(ledger.indexedCount() == 900)
        #expect(ledger.entries.count == 900)
    }
}
