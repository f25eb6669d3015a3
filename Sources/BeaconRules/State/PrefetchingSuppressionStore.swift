/// A store that reads ahead for a batch of events read in place: the in-memory store (its devices'
/// table slots, runs and entries, a stage at a time) and the PostgreSQL store (the batch's devices
/// locked and loaded in one round trip). `package`, as the batch is: `InPlaceEventBatch` is the
/// package's hot-path machinery, so the public `SuppressionStore` does not name it, and a user's
/// store takes no part in the device side of `RulesEngine.prefetch` (the beacon side is the
/// engine's own).
package protocol PrefetchingSuppressionStore: SuppressionStore {
    /// Loads (changing nothing) what looking up the devices of `events` will read, so that the
    /// batch's cache misses overlap (`RulesEngine.prefetch`), and sets `keys[i]` to the key of
    /// event i's device when the store knows it already (`keys` has one nil per event; a store
    /// may leave them nil). A key given stays the device's key. Returns a word of what it read,
    /// for the caller to keep so the loads are not optimized away.
    func prefetch(devicesOf events: borrowing InPlaceEventBatch, keys: inout [DeviceKey?]) -> UInt64
}

extension SuppressionStore {
    /// `prefetch(devicesOf:keys:)` when the store is a `PrefetchingSuppressionStore`, else nothing
    /// (0). One cast per batch, which the engine's specialization for the in-memory store resolves
    /// when it compiles.
    @inline(__always)
    func prefetchDevices(of events: borrowing InPlaceEventBatch, keys: inout [DeviceKey?]) -> UInt64 {
        guard let store = self as? any PrefetchingSuppressionStore else { return 0 }
        return store.prefetch(devicesOf: events, keys: &keys, as: DeviceKey.self)
    }
}

extension PrefetchingSuppressionStore {
    /// `prefetch(devicesOf:keys:)` through an existential, whose `DeviceKey` the compiler cannot tie
    /// to the caller's: `Key` is this store's `DeviceKey` whenever the engine calls it (the store
    /// is the engine's `Store`). That is checked, and then `[Key?]` and `[DeviceKey?]` are the same
    /// type, so the array is rebound in place (no copy: the store writes the caller's keys).
    func prefetch<Key>(devicesOf events: borrowing InPlaceEventBatch, keys: inout [Key?], as _: Key.Type) -> UInt64 {
        guard Key.self == DeviceKey.self else { return 0 }
        return withUnsafeMutablePointer(to: &keys) { pointer in
            pointer.withMemoryRebound(to: [DeviceKey?].self, capacity: 1) { prefetch(devicesOf: events, keys: &$0.pointee) }
        }
    }
}
