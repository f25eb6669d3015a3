import ArgumentParser
import BeaconRules

/// `--answer-retention`, `--response-window` (SPEC section 5) and the latenesses that event time
/// allows (`--suppression-lateness`, `--response-lateness`), shared by `replay`, `serve` and `http`.
struct RetentionOptions: ParsableArguments {
    @Option(name: .customLong("answer-retention"), help: ArgumentHelp("How long an answered event id is remembered, by the wall clock: a resend within it gets the same records, after it is a new event. 90s, 15m, 24h, 7d (default 24h).", valueName: "duration"), transform: RetentionOptions.duration)
    var answerRetention: Int64 = Retention.default.answers

    @Option(name: .customLong("response-window"), help: ArgumentHelp("How long after a record's fireDate (event time) responses to it are taken; later ones are refused and the delivery is forgotten. 90s, 15m, 24h, 7d (default 7d).", valueName: "duration"), transform: RetentionOptions.duration)
    var responseWindow: Int64 = Retention.default.responseWindow

    @Option(name: .customLong("suppression-lateness"), help: ArgumentHelp("How far (event time) a device's events may arrive behind the newest event of the stream and still be decided as if no suppression state had been forgotten: that state is kept this long past its interval. 90s, 15m, 24h, 7d (default 7d).", valueName: "duration"), transform: RetentionOptions.duration)
    var suppressionLateness: Int64 = Retention.default.lateness

    @Option(name: .customLong("response-lateness"), help: ArgumentHelp("How far (event time) a response may arrive behind the newest event of the stream and still be taken within its window: deliveries are kept this long past their window. 90s, 15m, 24h, 7d (default 1h).", valueName: "duration"), transform: RetentionOptions.duration)
    var responseLateness: Int64 = Retention.default.responseLateness

    var retention: Retention {
        Retention(answers: answerRetention, responseWindow: responseWindow, lateness: suppressionLateness, responseLateness: responseLateness)
    }

    /// Parses a duration; a bad one is a usage error (exit 2), which the parser says is the option's.
    static func duration(_ text: String) throws -> Int64 {
        do { return try Retention.milliseconds(text) } catch {
            throw ValidationError(error.description)
        }
    }
}
