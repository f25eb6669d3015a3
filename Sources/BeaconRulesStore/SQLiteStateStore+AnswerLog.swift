import BeaconRules

/// The store keeps a pipeline's answers, ledger, presence and outbox in the same file and the
/// same transactions as the suppression state.
extension SQLiteStateStore: AnswerLog {}
