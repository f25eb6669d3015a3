import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a test starts (a server process, a PostgreSQL cluster) must not outlive the test process,
/// even when that process crashes or is killed before its cleanup runs. For each such thing a
/// detached shell (its own session, so a signal to the test's process group does not take it
/// along) checks once a second that the test process is still there; when it is gone, the shell
/// ends what it guards. It ends by itself as soon as what it guards is gone.
enum OrphanGuard {
    /// Kills `pid` (SIGKILL) at most a second after the test process (or `owner`) is gone.
    static func guardProcess(_ pid: Int32, owner: Int32 = getpid()) {
        spawn(#"while kill -0 "$1" 2>/dev/null; do kill -0 "$2" 2>/dev/null || exit 0; sleep 1; done; kill -9 "$2" 2>/dev/null"#,
              ["\(owner)", "\(pid)"])
    }

    /// Runs `stop` (a command and its arguments) and removes `directory` at most a second after the
    /// test process (or `owner`) is gone; stops watching once `directory` is removed (the test cleaned up).
    static func guardDirectory(_ directory: String, stop: [String], owner: Int32 = getpid()) {
        spawn(#"test="$1" dir="$2"; shift 2; while kill -0 "$test" 2>/dev/null; do [ -d "$dir" ] || exit 0; sleep 1; done; "$@" >/dev/null 2>&1; rm -rf "$dir""#,
              ["\(owner)", directory] + stop)
    }

    /// `setsid -f bash -c SCRIPT guard ARGUMENTS...`: setsid forks the shell into a session of its
    /// own and returns at once; the shell is then nobody's child but init's. It first closes every
    /// descriptor it inherited beyond 0-2, so that nobody waiting for a pipe's end (a `Process`
    /// reading a child's output) waits for the guard too.
    private static func spawn(_ script: String, _ arguments: [String]) {
        let closeInherited = #"for fd in $(ls /proc/$$/fd); do [ "$fd" -gt 2 ] && eval "exec $fd>&-"; done; "#
        let argv = ["/usr/bin/setsid", "-f", "/bin/bash", "-c", closeInherited + script, "guard"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in 0...2 { posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0) }
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { for argument in cArguments { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, argv[0], &actions, nil, cArguments, environ) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    }
}
