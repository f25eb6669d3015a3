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
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
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

    deinit { release() }

    /// Lets another process open the state file (also done on deinit).
    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)  // closing the only descriptor of the open file releases the flock
        descriptor = -1
    }
}
