package import BeaconRules
import Foundation
#if canImport(Glibc)
package import Glibc
#endif

/// How a one-engine replay ended: `failure` nil, every source read to its end.
package struct ReplayOutcome {
    /// Why replay stopped early (stdout closed, a source that cannot be read, the state that
    /// cannot be saved); nil: it did not.
    package var failure: String?

    package init(failure: String? = nil) {
        self.failure = failure
    }
}

/// Stdout was closed under replay: it stops.
package struct OutputClosed: Error {
    package init() {}
}

/// The sources' plumbing shared by the one-engine drivers.
package enum ReplaySources {
    /// The events file `source` opened for reading (`-`: stdin, 0); nil, with `outcome.failure`
    /// saying why, when it does not open.
    package static func open(_ source: String, outcome: inout ReplayOutcome) -> Int32? {
        let fd = source == "-" ? 0 : Glibc.open(source, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            outcome.failure = "\(source): cannot open: \(String(cString: strerror(errno)))"
            return nil
        }
        return fd
    }

    /// The reader's next line; nil at the end, or on a read error (then in `failure`).
    package static func nextLine(of reader: inout LineReader, failing failure: inout ReadError?) -> UnsafeBufferPointer<UInt8>? {
        do { return try reader.nextLine() } catch {
            failure = error
            return nil
        }
    }

    /// A recorded scan file's items; nil, with `outcome.failure` saying why, when it cannot be read.
    package static func recordedScan(_ source: String, name: String, outcome: inout ReplayOutcome) -> [RecordedScanItem]? {
        do { return try RecordedScanItem.items(of: source, name: name) } catch {
            outcome.failure = error.description
            return nil
        }
    }

    /// The wall clock, which the answer retention counts by.
    package static func wallClock() -> Timestamp {
        Timestamp(milliseconds: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
    }
}

/// Freeing a large campaign set and its state object by object costs a fifth of a short run, and
/// the process is about to end: this keeps `pipeline` alive so the OS reclaims it all at once.
/// A reference in a global: an object made only to be leaked was removed by the optimizer (and
/// the pipeline freed, 105 M instructions under callgrind).
package func keepUntilExit(_ pipeline: AnyObject) {
    keptUntilExit.append(pipeline)
}

/// `nonisolated(unsafe)`: written once, by the command's one thread, just before it exits.
nonisolated(unsafe) private var keptUntilExit: [AnyObject] = []
