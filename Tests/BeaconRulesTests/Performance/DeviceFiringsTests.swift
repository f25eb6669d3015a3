@testable import BeaconRules
import BenchmarkWorkload
import Testing

/// `DeviceFirings`, the in-memory suppression state by device: its pool of entries grows a chunk
/// at a time and each run sits in a power-of-two piece of it, freed pieces taken again, so that it
/// neither copies nor compacts the whole pool.
@Suite("DeviceFirings: runs in pieces of a chunked pool")
struct DeviceFiringsTests {
    /// When an entry expires in this test: its time plus a horizon by campaign.
    static func end(_ campaign: UInt32, _ time: Int64) -> Int64 { time + 1_000 * Int64(campaign % 5 + 1) }

    /// Entries set (runs growing from 2 to 64 entries and moving to larger pieces), forgotten by a
    /// moving cutoff, and devices removed once empty and their numbers given again, in a random
    /// mix: the state reads as a dictionary of the same entries does, and little of the pool is
    /// free at any time.
    @Test func holdsWhatADictionaryHoldsAndReusesItsPieces() {
        var firings = DeviceFirings()
        var model: [UInt32: [UInt32: Int64]] = [:]
        var live: [UInt32] = []
        var generator = SeededRandom(seed: 3)
        var now: Int64 = 0
        var sweep = 0
        for step in 0..<120_000 {
            now += 1
            let choice = Int.random(in: 0..<20, using: &generator)
            if choice == 0 || live.isEmpty {
                let device = firings.addDevice()
                #expect(model[device] == nil)
                model[device] = [:]
                live.append(device)
            } else if choice < 16 {
                let device = live[Int.random(in: 0..<live.count, using: &generator)]
                // Some devices fire many campaigns: their runs outgrow several pieces.
                let spread: UInt32 = device % 7 == 0 ? 60 : 6
                let campaign = UInt32.random(in: 0..<spread, using: &generator)
                firings.set(device: device, campaign: campaign, time: now, end: Self.end(campaign, now))
                model[device]![campaign] = now
            } else {
                var emptied: [UInt32] = []
                (sweep, _) = firings.forget(from: sweep, limit: 50, cutoff: now - 2_500, emptied: &emptied, end: Self.end)
                for device in emptied {
                    #expect(firings.values(of: device).isEmpty)
                    firings.removeDevice(device)
                    model[device] = nil
                    live.removeAll { $0 == device }
                }
            }
            if step % 2_000 == 0 { check(&model, live: live, now: now, step: step) }
            // Pieces freed are taken again: little of the pool is ever free.
            if step % 1_000 == 0 { #expect(firings.freeEntries * 4 <= firings.poolSize + 64, "\(firings.freeEntries) of \(firings.poolSize) free") }
        }
        check(&model, live: live, now: now, step: -1)
        #expect(firings.count == model.values.reduce(0) { $0 + $1.count })
        #expect(firings.deviceCount == live.count)

        /// The sweep may not have reached every expired entry yet: what is held is in the model,
        /// and every entry of the model that has not expired is held; the model takes what is held.
        func check(_ model: inout [UInt32: [UInt32: Int64]], live: [UInt32], now: Int64, step: Int) {
            for device in live {
                let held = firings.values(of: device)
                for (campaign, time) in held { #expect(model[device]?[campaign] == time, "device \(device) campaign \(campaign)") }
                for (campaign, time) in model[device] ?? [:] where Self.end(campaign, time) > now - 2_500 {
                    #expect(held[campaign] == time, "device \(device) campaign \(campaign) at step \(step)")
                }
                model[device] = held
            }
        }
    }
}

extension DeviceFiringsTests {
    /// Devices that come, fire, expire and go, round after round: the second round on finds
    /// the pieces the first freed, so the pool does not grow past the first round's.
    @Test func aSteadyChurnReusesThePool() {
        var firings = DeviceFirings()
        var pools: [Int] = []
        for round in 0..<5 {
            var devices: [UInt32] = []
            for d in 0..<300 {
                let device = firings.addDevice()
                devices.append(device)
                // 1 to 40 campaigns: runs of every piece size up to 64.
                for campaign in 0..<UInt32(1 + (d * 7 + round) % 40) {
                    firings.set(device: device, campaign: campaign, time: Int64(round), end: Int64(round))
                }
            }
            var emptied: [UInt32] = []
            var from = 0
            repeat {
                (from, _) = firings.forget(from: from, limit: 64, cutoff: Int64(round), emptied: &emptied, end: { _, time in time })
            } while from != 0
            #expect(Set(emptied) == Set(devices))
            for device in emptied { firings.removeDevice(device) }
            #expect(firings.count == 0)
            pools.append(firings.poolSize)
        }
        #expect(pools.allSatisfy { $0 == pools[0] }, "\(pools)")
    }
}

extension DeviceFirings {
    /// The device's entries, by campaign (campaigns below 64).
    func values(of device: UInt32) -> [UInt32: Int64] {
        var held: [UInt32: Int64] = [:]
        for campaign in UInt32(0)..<64 { held[campaign] = value(device: device, campaign: campaign) }
        return held
    }
}
