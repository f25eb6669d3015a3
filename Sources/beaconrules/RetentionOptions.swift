import ArgumentParser
import BeaconRules

/// `--answer-retention` and `--response-window` (SPEC section 5), shared by `replay`, `serve`
/// and `http`.
struct RetentionOptions: ParsableArguments {
    @Option(name: .customLong("answer-retention"), help: ArgumentHelp("How long an answered event id is remembered, by the wall clock: a resend within it gets the same records, after it is a new event. 90s, 15m, 24h, 7d (default 24h).", valueName: "duration"), transform: RetentionOptions.duration)
    var answerRetention: Int64 = Retention.default.answers

    @Option(name: .customLong("response-window"), help: ArgumentHelp("How long after a record's fireDate (event time) responses to it are taken; later ones are refused and the delivery is forgotten. 90s, 15m, 24h, 7d (default 7d).", valueName: "duration"), transform: RetentionOptions.duration)
    var responseWindow: Int64 = Retention.default.responseWindow

    var retention: Retention { Retention(answers: answerRetention, responseWindow: responseWindow) }

    /// Parses a duration; a bad one is a usage error (exit 2), which the parser says is the option's.
    static func duration(_ text: String) throws -> Int64 {
        do { return try Retention.milliseconds(text) } catch {
            throw ValidationError(error.description)
        }
    }
}
