#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps a second process off a state file: an exclusive `flock` on `<state>.lock`, beside it,
/// held from open to close. SQLite's own locks cannot do it once the checkpointer (a second
/// connection of this process) shares the file, and a second writer process would interleave its
/// changes with ours. The lock goes with the process, even on `kill -9`; the file stays.
final class StateFileLock {
    let path: String
    private var descriptor: Int32

    /// Takes the lock, or says which process-wide lock is in the way.
    init(statePath: String) throws(StoreError) {
        path = statePath + ".lock"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            throw StoreError(path: statePath, message: "cannot open the lock file \(path): \(reason)")
        }
        guard Self.take(descriptor) else {
            let code = errno
            close(descriptor)
            descriptor = -1
            if code == EWOULDBLOCK {
                var error = StoreError(path: statePath, message: "the state file is in use by another beaconrules process (\(path) is locked); stop it or use another --state file")
                error.inUse = true
                throw error
            }
            throw StoreError(path: statePath, message: "cannot lock \(path): \(String(cString: strerror(code)))")
        }
    }

    /// How long a lock held elsewhere is waited for before the file is said to be in use: a
    /// process that another thread of this one is starting holds a copy of every descriptor from
    /// its fork to its exec (`O_CLOEXEC` closes it only then), the lock's too, so a state file
    /// closed and opened again here can find its own lock held for that moment (seen in the test
    /// suite, whose tests start processes side by side). A process that really has the file open
    /// still holds it after this.
    static let heldElsewhereWait = Duration.seconds(1)

    /// `flock`, exclusive, asked again every 10 ms for `heldElsewhereWait` while it is held
    /// elsewhere; false (with `errno` set) when it is still held then, or on another error.
    private static func take(_ descriptor: Int32) -> Bool {
        let tries = Int(heldElsewhereWait / .milliseconds(10))
        for attempt in 0...tries {
            if flock(descriptor, LOCK_EX | LOCK_NB) == 0 { return true }
            let code = errno
            guard code == EWOULDBLOCK, attempt < tries else {
                errno = code
                return false
            }
            usleep(10_000)
        }
        return false
    }

    deinit { release() }

    /// Lets another process open the state file (also done on deinit).
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)  // closing the only descriptor of the open file releases the flock
        descriptor = -1
    }
}
