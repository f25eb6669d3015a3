/// What the last `RulesEngine.prefetch(batch)` found, by each event's place in that batch (whose
/// `stamp` is `stamp`): the device's key when the store knew it, and the beacon's number and
/// candidate run (number -1: not numbered then). `write(batch, at:)` starts from these instead of
/// looking both up again; what was not known then is looked up as usual.
///
/// Invariant: the entries are about the batch stamped `stamp` only, and hold only what the store
/// and the candidate index already knew then; both only grow, so what was found stays true.
struct PrefetchWindow<DeviceKey> {
    var stamp: UInt64 = 0
    var devices: [DeviceKey?] = []
    var beacons: [(number: Int32, run: UInt64)] = []
    /// Where `prefetch` keeps a word of what it loaded, so the loads are not optimized away.
    var sink: UInt64 = 0

    /// What was found for the event at `i` of the batch stamped `batchStamp`; nil when that batch
    /// was not the last prefetched.
    @inline(__always)
    func found(batch batchStamp: UInt64, at i: Int) -> (device: DeviceKey?, beacon: (number: Int32, run: UInt64))? {
        guard batchStamp == stamp && i < devices.count && i < beacons.count else { return nil }
        return (devices[i], beacons[i])
    }
}

/// How many events `RulesEngine.prefetch` takes together (`RulesEngine.prefetchBatchSize`, where
/// the choice is explained). Not in a generic type: code generic over the store that is not
/// specialized (a caller in another module) reads it without looking up the engine's metadata.
@usableFromInline
enum PrefetchWindowWidth {
    @inlinable static var events: Int { 32 }
}
