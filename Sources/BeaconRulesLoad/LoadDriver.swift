import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What went wrong while driving the server.
struct LoadError: Error, CustomStringConvertible {
    let description: String
}

/// One connection's requests and when each line went out.
///
/// `@unchecked Sendable`: the sender thread writes `sentAt[i]` (and a sighting's time in `bytes`)
/// before it writes line i to the socket; the receiver reads `sentAt[i]` only after it has read
/// the reply to line i, which the server cannot send before it got the line. The socket orders
/// the two (both are system calls); the receiver never reads `bytes`.
final class LoadConnection: @unchecked Sendable {
    let fd: Int32
    /// The lines' bytes; the sender fills in the times of lines that carry the wall clock.
    let bytes: UnsafeMutableBufferPointer<UInt8>
    /// Where each line ends, just past its `\n`.
    let ends: [Int]
    /// Where each line's wall-clock time goes (`RenderedLines.timeFields`); empty if none does.
    let timeFields: [Int]
    /// When each line was handed to the kernel, in nanoseconds of the monotonic clock.
    let sentAt: UnsafeMutablePointer<UInt64>

    init(fd: Int32, lines: RenderedLines) {
        self.fd = fd
        bytes = .allocate(capacity: max(lines.bytes.count, 1))
        _ = bytes.initialize(from: lines.bytes)
        ends = lines.ends
        timeFields = lines.timeFields
        sentAt = .allocate(capacity: max(ends.count, 1))
        sentAt.initialize(repeating: 0, count: max(ends.count, 1))
    }

    deinit {
        bytes.deallocate()
        sentAt.deallocate()
        close(fd)
    }
}

/// The sender thread's result: its worst lag behind schedule, or why it stopped.
final class SenderOutcome: Sendable {
    let state = Mutex<Result<UInt64, LoadError>?>(nil)
}

/// What the receiver counts per connection.
///
/// Replies come back in request order (the protocol says so), so the n-th newline received answers
/// the n-th line sent: a reply is timed without reading its id, and one byte of it (`t` or `f` in
/// `{"ok":t`/`{"ok":f`) says whether it is a rejection.
struct ReplyCount {
    var replies = 0
    var rejected = 0
    var receivedBytes = 0
    /// Bytes of the current reply seen so far.
    var intoReply = 0
    /// Records (`{"kind":` objects) counted in the first `sampledReplies` replies.
    var sampledRecords = 0
    var sampledReplies = 0
    var latencies: [UInt64] = []
}

/// Drives `serve` with two threads for all connections: a sender that writes pre-rendered request
/// bytes (paced with `clock_nanosleep`, or as fast as the sockets take them), and a receiver that
/// `poll`s every socket and counts newlines. The cheapest client that can still pace its sends, so
/// that on a small machine the server gets the cores.
struct LoadDriver: Sendable {
    let host: String
    let port: Int
    /// Events per second across all connections; nil: pipelined, as fast as the server answers.
    let rate: Double?
    /// Replies per connection whose records are counted (to show that rules fired).
    var recordSample = 1000
    /// The pacing grain: the sender sleeps at least this long (ns) between wakes and then sends
    /// every event due by then, so at high rates events leave in small groups.
    static let grain: UInt64 = 200_000

    struct Outcome {
        var seconds: Double
        var replies: Int
        var rejected: Int
        var receivedBytes: Int
        var sampledRecords: Int
        var sampledReplies: Int
        /// Each connection's round trips (ns), in the order of its lines.
        var latencies: [[UInt64]]
        /// When each connection's lines were sent, ns after `start`, in the order of its lines.
        var sent: [[UInt64]]
        /// When the clock started, in ns of the monotonic clock (`perf record -k CLOCK_MONOTONIC`
        /// stamps its samples with the same clock).
        var start: UInt64
        /// How late the sender was, at worst, against its schedule (rate mode).
        var worstSendLag: UInt64
        /// The client's own CPU time (user + system, both threads), seconds.
        var clientCPU: Double
    }

    func run(requests: [RenderedLines]) throws(LoadError) -> Outcome {
        var connections: [LoadConnection] = []
        for request in requests {
            connections.append(LoadConnection(fd: try connect(), lines: request))
        }
        let cpuBefore = Self.cpuSeconds()
        let start = Self.now()
        let sent = SenderOutcome()
        let sender = Thread { [connections, rate] in
            do throws(LoadError) {
                let worst = try Self.send(connections, rate: rate, start: start)
                sent.state.withLock { $0 = .success(worst) }
            } catch {
                sent.state.withLock { $0 = .failure(error) }
            }
        }
        sender.name = "load-sender"
        sender.start()
        let counts = try receive(connections, sender: sent)
        // Every reply is in, so every line was sent: the sender is finishing or done.
        var worstLag: UInt64 = 0
        while true {
            if let result = sent.state.withLock({ $0 }) { worstLag = try result.get(); break }
            usleep(1000)
        }
        let elapsed = Self.now() - start
        return Outcome(
            seconds: Double(elapsed) / 1e9,
            replies: counts.reduce(0) { $0 + $1.replies },
            rejected: counts.reduce(0) { $0 + $1.rejected },
            receivedBytes: counts.reduce(0) { $0 + $1.receivedBytes },
            sampledRecords: counts.reduce(0) { $0 + $1.sampledRecords },
            sampledReplies: counts.reduce(0) { $0 + $1.sampledReplies },
            latencies: counts.map(\.latencies),
            sent: connections.map { c in (0..<c.ends.count).map { c.sentAt[$0] &- start } },
            start: start,
            worstSendLag: worstLag,
            clientCPU: Self.cpuSeconds() - cpuBefore)
    }

    // MARK: - Sending

    /// Writes every connection's lines, on schedule or as fast as the sockets take them, and
    /// half-closes each connection after its last line. Returns the worst lag behind schedule.
    private static func send(_ connections: [LoadConnection], rate: Double?, start: UInt64) throws(LoadError) -> UInt64 {
        var written = [Int](repeating: 0, count: connections.count)
        var stamped = [Int](repeating: 0, count: connections.count)  // lines whose time is set
        var clocked = [Int](repeating: 0, count: connections.count)  // lines whose wall clock is set
        var released = [Int](repeating: 0, count: connections.count)
        let total = connections.reduce(0) { $0 + $1.ends.count }
        var worstLag: UInt64 = 0
        guard let rate else {
            for i in connections.indices { released[i] = connections[i].ends.count }
            try pump(connections, &written, &stamped, &clocked, released, chunk: 1 << 16)
            return 0
        }
        let interval = 1e9 / rate
        var scheduled = 0
        var lastWake: UInt64 = 0
        while scheduled < total {
            let due = start + UInt64(Double(scheduled) * interval)
            // Wakes at most once per `grain`: at 20,000 events/s a wake (two context switches on
            // a VM) per event would cost the client more than the server spends on the event.
            let wake = max(due, lastWake + Self.grain)
            var now = Self.now()
            if now < wake {
                var until = timespec(tv_sec: Int(wake / 1_000_000_000), tv_nsec: Int(wake % 1_000_000_000))
                while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
                now = Self.now()
            }
            lastWake = now
            worstLag = max(worstLag, now - due)
            // Everything due by now goes out, round-robin over the connections.
            let dueNow = max(min(total, Int(Double(now - start) / interval) + 1), scheduled + 1)
            while scheduled < dueNow {
                let i = scheduled % connections.count
                if released[i] < connections[i].ends.count { released[i] += 1 }
                scheduled += 1
            }
            try pump(connections, &written, &stamped, &clocked, released, chunk: 1 << 16)
        }
        return worstLag
    }

    /// Writes each connection's released lines, waiting for room when a socket is full.
    private static func pump(
        _ connections: [LoadConnection], _ written: inout [Int], _ stamped: inout [Int], _ clocked: inout [Int], _ released: [Int],
        chunk: Int
    ) throws(LoadError) {
        while true {
            var waiting: [pollfd] = []
            for (i, c) in connections.enumerated() where released[i] > 0 {
                let limit = c.ends[released[i] - 1]
                if written[i] == limit { continue }
                let end = min(limit, written[i] + chunk)
                // Stamp before the write: the reply may be read before write() even returns.
                let now = Self.now()
                var line = stamped[i]
                while line < released[i] && c.ends[line] <= end { c.sentAt[line] = now; line += 1 }
                if line < released[i] { c.sentAt[line] = now }  // a partial line: stamped again when finished
                // A line's wall clock is set once, before its first byte goes: never half-sent.
                if !c.timeFields.isEmpty {
                    let wall = WallClockStamp.milliseconds()
                    while clocked[i] < released[i] && (clocked[i] == 0 ? 0 : c.ends[clocked[i] - 1]) < end {
                        WallClockStamp.write(wall, to: c.bytes.baseAddress! + c.timeFields[clocked[i]])
                        clocked[i] += 1
                    }
                }
                let n = write(c.fd, c.bytes.baseAddress! + written[i], end - written[i])
                if n < 0 {
                    if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                        waiting.append(pollfd(fd: c.fd, events: Int16(POLLOUT), revents: 0))
                        continue
                    }
                    throw LoadError(description: "write: \(String(cString: strerror(errno)))")
                }
                written[i] += n
                while stamped[i] < released[i] && c.ends[stamped[i]] <= written[i] { stamped[i] += 1 }
                if written[i] == c.ends[c.ends.count - 1] { shutdown(c.fd, Int32(SHUT_WR)) }
            }
            var pending = 0
            for (i, c) in connections.enumerated() where released[i] > 0 && written[i] < c.ends[released[i] - 1] { pending += 1 }
            if pending == 0 { return }
            // Every socket with something left to send is full: wait for room in one of them.
            if waiting.count == pending { _ = poll(&waiting, nfds_t(waiting.count), 100) }
        }
    }

    // MARK: - Receiving

    private func receive(_ connections: [LoadConnection], sender: SenderOutcome) throws(LoadError) -> [ReplyCount] {
        var counts = connections.map { c -> ReplyCount in
            var count = ReplyCount()
            count.latencies.reserveCapacity(c.ends.count)
            return count
        }
        var fds = connections.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
        var buffer = [UInt8](repeating: 0, count: 1 << 18)
        var open = connections.count
        while open > 0 {
            let ready = poll(&fds, nfds_t(fds.count), 1000)
            if ready < 0 && errno != EINTR { throw LoadError(description: "poll: \(String(cString: strerror(errno)))") }
            if ready <= 0 {
                if case .failure(let error)? = sender.state.withLock({ $0 }) { throw error }
                continue
            }
            for i in connections.indices where fds[i].fd >= 0 && fds[i].revents != 0 {
                try read(connections[i], &counts[i], into: &buffer)
                if counts[i].replies == connections[i].ends.count {
                    fds[i].fd = -1
                    open -= 1
                }
            }
        }
        return counts
    }

    /// Reads what arrived: each `\n` ends the reply to the next line in order.
    private func read(_ c: LoadConnection, _ count: inout ReplyCount, into buffer: inout [UInt8]) throws(LoadError) {
        let sample = recordSample
        while true {
            let n = buffer.withUnsafeMutableBytes { Glibc.read(c.fd, $0.baseAddress!, $0.count) }
            if n < 0 {
                if errno == EAGAIN || errno == EWOULDBLOCK { return }
                if errno == EINTR { continue }
                throw LoadError(description: "read: \(String(cString: strerror(errno)))")
            }
            if n == 0 {
                if count.replies < c.ends.count {
                    throw LoadError(description: "the server closed a connection after \(count.replies) of \(c.ends.count) replies")
                }
                return
            }
            // Timed after the read: a reply read here was sent before this instant.
            let now = Self.now()
            count.receivedBytes += n
            buffer.withUnsafeBytes { raw in
                let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                var position = 0
                while position < n {
                    let newline = memchr(base + position, 0x0A, n - position).map { UnsafeRawPointer($0) - UnsafeRawPointer(base) }
                    let end = newline ?? n
                    // `{"ok":t` or `{"ok":f`: byte 6 of a reply says which.
                    if count.intoReply <= 6 && count.intoReply + (end - position) > 6,
                       base[position + 6 - count.intoReply] == UInt8(ascii: "f") {
                        count.rejected += 1
                    }
                    if count.replies < sample { count.sampledRecords += Self.records(in: base + position, length: end - position) }
                    guard let newline else {
                        count.intoReply += n - position
                        break
                    }
                    count.latencies.append(now &- c.sentAt[count.replies])
                    count.replies += 1
                    if count.replies <= sample { count.sampledReplies += 1 }
                    count.intoReply = 0
                    position = newline + 1
                }
            }
            if n < buffer.count { return }
        }
    }

    /// Objects that start with `"kind":`, the first key of every record.
    private static func records(in base: UnsafePointer<UInt8>, length: Int) -> Int {
        let key = Array("\"kind\":".utf8)
        var found = 0
        var position = 0
        while position < length, let hit = memchr(base + position, 0x7B, length - position) {
            let at = UnsafeRawPointer(hit) - UnsafeRawPointer(base)
            if at + 1 + key.count <= length && memcmp(base + at + 1, key, key.count) == 0 { found += 1 }
            position = at + 1
        }
        return found
    }

    // MARK: - System

    private func connect() throws(LoadError) -> Int32 {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw LoadError(description: "cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LoadError(description: "socket: \(String(cString: strerror(errno)))") }
        guard Glibc.connect(fd, first.pointee.ai_addr, first.pointee.ai_addrlen) == 0 else {
            let reason = String(cString: strerror(errno))
            close(fd)
            throw LoadError(description: "cannot connect to \(host):\(port): \(reason)")
        }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        return fd
    }

    static func now() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    static func cpuSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }
}
