import CoreMetrics

/// The service's metrics, under `serve`'s names, recorded through the swift-metrics API into
/// the factory given (by default the one the application bootstrapped; nothing is recorded
/// before it does). Counted once per call, not per event.
struct ServiceMetrics: Sendable {
    let events: Counter
    let notifications: Counter
    let silent: Counter
    let invalidLines: Counter
    let rejectedResponses: Counter
    let rejectedPresence: Counter
    let stateNotSaved: Counter
    let commit: Timer
    let reloads: Counter

    init(factory: any MetricsFactory) {
        func rejected(_ reason: String) -> Counter {
            Counter(label: "beaconrules_lines_rejected_total", dimensions: [("reason", reason)], factory: factory)
        }
        events = Counter(label: "beaconrules_events_total", factory: factory)
        notifications = Counter(label: "beaconrules_records_total", dimensions: [("kind", "notification")], factory: factory)
        silent = Counter(label: "beaconrules_records_total", dimensions: [("kind", "silent")], factory: factory)
        invalidLines = rejected("invalid_line")
        rejectedResponses = rejected("response")
        rejectedPresence = rejected("presence")
        stateNotSaved = rejected("state_not_saved")
        commit = Timer(label: "beaconrules_commit_seconds", factory: factory)
        reloads = Counter(label: "beaconrules_reloads_total", dimensions: [("result", "ok")], factory: factory)
    }
}
