/// One stay of a (device, beacon) pair as the presence layer's outputs tell it: from the enter to
/// the last presence (`departedAt`), the exit confirmed at `exit`; both `Int64.max` while open.
package struct PairStay: Sendable, Equatable {
    package var key: PresenceKey
    package var enter: Int64
    package var departedAt: Int64
    package var exit: Int64

    /// The stays of a presence log (`PresenceEngine.log`) in the order they ended, open ones last
    /// (by key). An exit with no enter before it is a stay from its last presence.
    package static func stays(in outputs: [PresenceOutput]) -> [PairStay] {
        var open: [PresenceKey: Int64] = [:]
        var stays: [PairStay] = []
        for output in outputs {
            switch output {
            case .enter(let e):
                open[PresenceKey(device: e.device, beacon: e.beacon)] = e.time.milliseconds
            case .exit(let e, let departedAt):
                let key = PresenceKey(device: e.device, beacon: e.beacon)
                let start = open.removeValue(forKey: key) ?? departedAt.milliseconds
                stays.append(PairStay(key: key, enter: start, departedAt: departedAt.milliseconds, exit: e.time.milliseconds))
            case .dwell: break
            }
        }
        let stillOpen = open.sorted { ($0.key.device, $0.key.beacon.description) < ($1.key.device, $1.key.beacon.description) }
        for (key, start) in stillOpen { stays.append(PairStay(key: key, enter: start, departedAt: Int64.max, exit: Int64.max)) }
        return stays
    }
}
