import ArgumentParser

/// A command whose work runs on the main thread, as a synchronous command's does, and awaits a
/// database there when it reaches one (`replay`, `report`, `explain`, `state` with
/// `postgres://`): its engine, its SQLite file and its output never run on Swift's cooperative
/// pool (an `AsyncParsableCommand`'s `run()` would), and no PostgreSQL round trip blocks a thread.
/// `BeaconRulesCommand.main()` calls `runOnMain()`.
protocol MainThreadCommand: ParsableCommand {
    /// The command's work, on the main actor (the main thread).
    @MainActor func runOnMain() async throws
}
