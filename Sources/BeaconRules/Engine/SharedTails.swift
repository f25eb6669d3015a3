import Synchronization

/// Record tails shared by engines that run side by side (`replay --jobs N`'s shards): each tail
/// that can be shared (`tailShare` in RulesEngine+Tails: one per campaign, trigger and chosen
/// language) is rendered by the first engine that needs it and published here; another engine
/// that lacks it takes it from here instead of rendering it again. So N engines render what one
/// engine renders.
///
/// Only an engine's tail-cache misses come here (under a lock, a few thousand times a run): an
/// engine keeps what it took in its own cache (`TailCache`), and its hot path never reads this.
///
/// Invariant: a published tail's bytes never change or move (they live in the publishing
/// engine's `StableByteArena`, which this object keeps alive), and the first tail published under
/// a key stays; any tail published under a key is the one every engine would render for it.
public final class SharedTails: Sendable {
    /// Where a published tail's bytes are.
    /// `@unchecked Sendable`: the pointer is into an arena `arenas` keeps alive, whose stored
    /// bytes are never written again (`StableByteArena`); any thread may read them.
    struct Tail: @unchecked Sendable {
        let start: UnsafePointer<UInt8>
        let count: Int
    }

    private let published = Mutex<[UInt64: Tail]>([:])
    /// The arenas of the engines that publish here, kept alive as long as this object.
    private let arenas = Mutex<[StableByteArena]>([])

    /// An empty table, for the engines of one campaign set and locale table to share.
    public init() {}

    /// Tails published.
    public var count: Int { published.withLock { $0.count } }

    /// Keeps `arena` (an engine's, whose tails it publishes) alive with this object.
    func register(_ arena: StableByteArena) {
        arenas.withLock { $0.append(arena) }
    }

    /// The tail published under `share`, if any.
    func tail(_ share: UInt64) -> UnsafeBufferPointer<UInt8>? {
        published.withLock { $0[share] }.map { UnsafeBufferPointer(start: $0.start, count: $0.count) }
    }

    /// Publishes `bytes` (stored in a registered arena) as the tail of `share`, unless one is already.
    func publish(_ share: UInt64, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard let start = bytes.baseAddress else { return }
        published.withLock { table in
            if table[share] == nil { table[share] = Tail(start: start, count: bytes.count) }
        }
    }
}
