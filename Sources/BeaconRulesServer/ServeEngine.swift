import BeaconRules
import BeaconRulesStore
import NIOCore

/// `serve`'s engine with its store, as the `EngineOwner` runs it: an `OwnerLoop` of a concrete
/// store behind a protocol, so that the owner is not generic.
protocol ServeEngine: Sendable {
    /// Nothing is pending on the clock (no open stay, pending exit or dwell): the owner may
    /// sleep until work arrives.
    var isIdle: Bool { get }
    /// `jobs` cut into transactions (see `OwnerLoop.transactions(_:locking:)`).
    func transactions(_ jobs: [EngineOwner.Job]) -> [[EngineOwner.Job]]
    /// Applies jobs at once, on the caller's thread (which must be the only one that calls).
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)]
    /// The replies of the last transaction are on their way (see `StateLog.repliesSent()`).
    func repliesSent()
    /// A wake with no work: the clock alone may confirm exits and fire dwells.
    func tick()
    /// Lets the wall clock fire pending exits and dwells, if any are pending.
    func tickIfDue()
    /// Closes the store.
    func close()
}

/// An `OwnerLoop` of concrete stores behind the `ServeEngine` protocol. Called through the
/// protocol, a generic class would run unspecialized (every store call through a witness table,
/// generic metadata looked up at run time); each conforming class below names its store, so the
/// witnesses (this extension's methods, for that class) are specialized for it.
protocol OwnerLoopEngine: ServeEngine {
    associatedtype Store: SuppressionStore
    associatedtype Log: StateLog
    var loop: OwnerLoop<Store, Log> { get }
}

extension OwnerLoopEngine {
    var isIdle: Bool { loop.isIdle }
    func transactions(_ jobs: [EngineOwner.Job]) -> [[EngineOwner.Job]] { loop.transactions(jobs) }
    func process(_ jobs: [EngineOwner.Job]) -> [(any ReplyTarget, ByteBuffer)] { loop.process(jobs) }
    func repliesSent() { loop.repliesSent() }
    func tick() { loop.tick() }
    func tickIfDue() { loop.tickIfDue() }
    func close() { loop.close() }
}

/// `serve --state FILE`. `@unchecked Sendable`: as `OwnerLoop`, confined to the owner's one thread.
final class SQLiteServeEngine: OwnerLoopEngine, @unchecked Sendable {
    let loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>
    init(_ loop: OwnerLoop<SQLiteStateStore, SQLiteStateStore>) { self.loop = loop }
}

/// `serve --state postgres://...`. `@unchecked Sendable`: as `SQLiteServeEngine`, on the thread
/// that owns the database connection. Generic over the database's store, which the server does not
/// know by name (BeaconRulesPostgres makes it, so that the server compiles no database driver):
/// unlike `SQLiteServeEngine`'s, its loop is specialized only where the store is known.
final class SharedServeEngine<Store: SuppressionStore & StateLog>: OwnerLoopEngine, @unchecked Sendable {
    let loop: OwnerLoop<Store, Store>
    init(_ loop: OwnerLoop<Store, Store>) { self.loop = loop }
}

/// `serve` without `--state`. `@unchecked Sendable`: as `SQLiteServeEngine`; its one thread is the
/// engine's event loop (`EngineOwner` calls it there and nowhere else: `submit` when on that loop,
/// the inbox's drain, the clock's tick and `stop` as tasks on it), or the owner's thread
/// (`--engine-thread`).
final class InMemoryServeEngine: OwnerLoopEngine, @unchecked Sendable {
    let loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>
    init(_ loop: OwnerLoop<InMemorySuppressionStore, MemoryStateLog>) { self.loop = loop }
}
