import BeaconRules
import NIOCore

/// How `serve --apps` hands each app its own lines: each connection's job is cut into runs of
/// consecutive lines of one app, each run a job of that app's engine (its reply target a
/// `RunSlot`, which says where the run's replies go back), and the replies are put back together
/// in the job's order for the connection. A line that names no app is answered here, and reaches
/// no app's engine.
struct AppRuns {
    /// Each app's jobs (runs and reloads), in the order they came.
    private(set) var perApp: [[EngineOwner.Job]]
    /// Each connection's job: where its replies go, and its pieces in order (a run's replies once
    /// its app's engine has given them; the refusals of lines naming no app, written here).
    private var jobs: [(target: any ReplyTarget, pieces: [ByteBuffer?])] = []

    static let onlyTheAppsEngine = "a line or reload of `serve --apps` given to one app's engine"

    /// `jobs` (apps' lines and reloads) cut per app; the lines naming no app are answered and
    /// counted in `unnamed` (the metrics with the label `app=""`).
    init(_ jobs: [EngineOwner.Job], apps: Int, unnamed: ServeMetrics) {
        perApp = Array(repeating: [], count: apps)
        var refused = 0
        for job in jobs {
            switch job {
            case .appLines(let lines, let target):
                let index = self.jobs.count
                var pieces: [ByteBuffer?] = []
                var start = lines.startIndex
                while start < lines.endIndex {
                    let app = lines[start].app
                    var end = start + 1
                    while end < lines.endIndex && lines[end].app == app { end += 1 }
                    if let app {
                        let slot = RunSlot(target: target, job: index, piece: pieces.count)
                        perApp[app].append(.lines(lines[start..<end].map(\.line), slot))
                        pieces.append(nil)
                    } else {
                        var writer = JSONWriter(capacity: 256)
                        for case .rejected(let number, let message) in lines[start..<end].map(\.line) {
                            Reply.rejected(line: number, message: message, into: &writer)
                        }
                        refused += end - start
                        pieces.append(ByteBuffer(bytes: writer.bytes))
                    }
                    start = end
                }
                self.jobs.append((target, pieces))
            case .appReload(let app, let campaigns, let locales, let continuation):
                perApp[app].append(.reload(campaigns, locales, continuation))
            case .lines, .reload:
                preconditionFailure("a line of one app given to the apps' engine")
            }
        }
        unnamed.invalid(refused)
    }

    /// The replies of runs, as an app's engine gave them (each to its `RunSlot`).
    mutating func take(_ replies: [(any ReplyTarget, ByteBuffer)]) {
        for (target, reply) in replies {
            guard let slot = target as? RunSlot else { preconditionFailure("a reply of `serve --apps` without its run") }
            jobs[slot.job].pieces[slot.piece] = reply
        }
    }

    /// Each connection's replies, its pieces joined in order.
    func replies() -> [(any ReplyTarget, ByteBuffer)] {
        jobs.map { job in
            var joined = ByteBuffer()
            for piece in job.pieces {
                guard var piece else { preconditionFailure("a run of `serve --apps` left without its replies") }
                joined.writeBuffer(&piece)
            }
            return (job.target, joined)
        }
    }
}

/// Where the replies of one run of an app's lines go back: a piece of a connection's job.
struct RunSlot: ReplyTarget {
    let target: any ReplyTarget
    let job: Int
    let piece: Int

    var eventLoop: any EventLoop { target.eventLoop }
    var id: ObjectIdentifier { target.id }
    /// Never called: `AppRuns` takes the replies and joins them.
    func deliver(_ reply: ByteBuffer, flush: Bool) {
        preconditionFailure("a run's replies are joined, never delivered alone")
    }
}
