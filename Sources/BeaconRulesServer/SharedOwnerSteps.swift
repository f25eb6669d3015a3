import BeaconRules

/// How the `SharedOwnerLoop` cuts the jobs it takes into transactions: bounded, in order, with
/// reloads between them.
enum SharedOwnerSteps {
    /// Lines at most in one transaction (a job is never split): it holds a lock per device until
    /// it commits, and PostgreSQL's lock table is shared and bounded (`max_locks_per_transaction`
    /// × `max_connections`). Without the cap, a backlog (clients resending after an outage) would
    /// make one transaction too large to ever commit.
    static var linesPerTransaction: Int { 1024 }

    /// What the owner does with a run of jobs, in order.
    enum Step {
        /// Lines of several jobs, one transaction.
        case transaction([EngineOwner.Job])
        /// A new campaign set, between two transactions (a transaction may run twice: its lines
        /// must see one campaign set each time).
        case reload(CampaignSet, LocaleTable, CheckedContinuation<Void, Never>)
    }

    /// `jobs` in order: transactions of at most `linesPerTransaction` lines, reloads between them.
    static func steps(_ jobs: [EngineOwner.Job]) -> [Step] {
        var steps: [Step] = []
        var current: [EngineOwner.Job] = []
        var lines = 0
        for job in jobs {
            switch job {
            case .lines(let jobLines, _):
                if lines > 0 && lines + jobLines.count > linesPerTransaction {
                    steps.append(.transaction(current))
                    current = []
                    lines = 0
                }
                current.append(job)
                lines += jobLines.count
            case .reload(let campaigns, let locales, let continuation):
                if !current.isEmpty { steps.append(.transaction(current)) }
                current = []
                lines = 0
                steps.append(.reload(campaigns, locales, continuation))
            case .appLines, .appReload:
                preconditionFailure(AppRuns.onlyTheAppsEngine)
            }
        }
        if !current.isEmpty { steps.append(.transaction(current)) }
        return steps
    }
}
