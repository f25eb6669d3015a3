/// Input of one device that is behind the stream: its own reorder buffer, newest time and timers,
/// so that its lateness is measured against its own input only.
///
/// The presence layer keeps the input in time order as one stream (`maxLateness` against the
/// newest event time of all). A device whose first input is older than the stream's watermark
/// (the next phone's file after the first one, or the next device of a file grouped by device)
/// is not late: it is behind, and runs on a lane of its own, exactly as it would alone, until its
/// own time catches up with the stream, when its lane joins it. What is per device (its pairs, its
/// exclusive zone when the device is the subject, its suppression state in the rules) allows this;
/// when exclusive zones compare a carried beacon across devices (scanners), there are no lanes and
/// input must be in time order across devices, within `maxLateness`.
struct PresenceLane: Sendable {
    /// The newest event time accepted on this lane (`Int64.min`: none yet).
    var newest = Int64.min
    /// Input held until the lane's watermark passes it, in (time, arrival) order.
    var buffer = MinHeap<PresenceLayer.Buffered>()
    /// The pending exit timeouts and dwells of the lane's pairs.
    var timers = MinHeap<PresenceLayer.Timer>()

    /// Input older than this is refused: things at its time are already decided. `floor` is the
    /// clock a server moved every device on to (`Int64.min` in replay).
    func watermark(floor: Int64, lateness: Int64) -> Int64 {
        let reference = Swift.max(newest, floor)
        return reference == Int64.min ? Int64.min : reference &- lateness
    }
}
