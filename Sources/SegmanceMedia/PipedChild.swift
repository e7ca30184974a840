#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif

/// A program started with `posix_spawn`: its standard input /dev/null, its standard output
/// and error into pipes whose read ends this side owns (close-on-exec, so no other child this
/// process starts inherits them). The caller reads, closes and reaps.
struct PipedChild {
    let pid: pid_t
    let output: Int32
    let errors: Int32

    /// Why the program was not started: the failing call and its errno.
    struct Failure: Error {
        var call: String
        var code: Int32
        var message: String { SystemError.text(code) }
    }

    /// Starts `program` with `arguments` (argv[0] first); `outputPipeBytes` asks for a
    /// larger output pipe (F_SETPIPE_SZ).
    static func spawn(_ program: String, _ arguments: [String], outputPipeBytes: Int32? = nil) throws(Failure) -> PipedChild {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw Failure(call: "pipe", code: errno) }
        guard pipe(&err) == 0 else {
            let code = errno
            close(out[0]); close(out[1])
            throw Failure(call: "pipe", code: code)
        }
        // Not inherited by other children this process starts (dup2 into 1 and 2 clears it there).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // F_SETPIPE_SZ (Linux) is 1031.
        if let bytes = outputPipeBytes { _ = fcntl(out[0], 1031, bytes) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, program, &actions, nil, argv, environ)
        close(out[1])
        close(err[1])
        guard code == 0 else {
            close(out[0]); close(err[0])
            throw Failure(call: "posix_spawn", code: code)
        }
        return PipedChild(pid: pid, output: out[0], errors: err[0])
    }
}
