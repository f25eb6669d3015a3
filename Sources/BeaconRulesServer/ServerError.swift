/// Why the server cannot start or go on, in words a user can act on.
package enum ServerError: Error, Sendable, CustomStringConvertible {
    /// `--host` is not a loopback address and `--allow-remote` was not given.
    case remoteHostRefused(String)
    /// The address could not be bound (in use, not an address of this machine...).
    case cannotListen(host: String, port: Int, reason: String)
    /// A port outside 0...65535.
    case badPort(Int)
    /// Work arrived after the state owner stopped (only during shutdown).
    case stopped
    /// `run()` was called a second time on the same server.
    case alreadyStarted

    package var description: String {
        switch self {
        case .remoteHostRefused(let host):
            return "--host \(host) is not a loopback address; the protocol has no authentication, so add --allow-remote to listen there anyway"
        case .cannotListen(let host, let port, let reason):
            return "cannot listen on \(host):\(port): \(reason)"
        case .badPort(let port):
            return "--port \(port): expected 0...65535 (0 picks a free port)"
        case .stopped:
            return "the server is stopping"
        case .alreadyStarted:
            return "this server has already been started; make a new one"
        }
    }
}
