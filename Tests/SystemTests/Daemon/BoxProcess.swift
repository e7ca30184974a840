import Foundation
import Glibc
import Synchronization

/// A process the system tests start: the daemon, or a command whose output they read.
/// Standard error and output are read line by line on a thread of their own, each line
/// stamped with the monotonic time it arrived, so a test waits for a line with a deadline
/// instead of sleeping.
final class BoxProcess: @unchecked Sendable {
    struct Line: Sendable {
        var text: String
        var time: Int64
        /// The journald priority the line was written with (the daemon's `<3>`…`<7>`
        /// prefix, which journald strips as `text` has it stripped); nil when none.
        var priority: Int?

        init(_ written: String, time: Int64) {
            self.time = time
            let bytes = Array(written.utf8.prefix(3))
            if bytes.count == 3, bytes[0] == UInt8(ascii: "<"), bytes[2] == UInt8(ascii: ">"),
               (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[1]) {
                priority = Int(bytes[1] - UInt8(ascii: "0"))
                text = String(written.dropFirst(3))
            } else {
                text = written
            }
        }
    }

    let argv: [String]
    let pid: pid_t
    private let output: Int32
    private let lines = Mutex<[Line]>([])
    private let ended = Mutex<Int32?>(nil)
    /// Set when the output reached its end (every writer closed it).
    private let drained = Atomic<Bool>(false)

    /// Starts `argv` (a path and its arguments) with `environment` added to this one's.
    init(_ argv: [String], environment: [String: String] = [:]) throws {
        self.argv = argv
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw BoxError("pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addclose(&actions, fds[1])
        var variables = ProcessInfo.processInfo.environment
        for (key, value) in environment { variables[key] = value }
        let env = variables.map { strdup("\($0.key)=\($0.value)") } + [nil]
        let args = argv.map { strdup($0) } + [nil]
        defer {
            env.forEach { free($0) }
            args.forEach { free($0) }
        }
        var child: pid_t = 0
        let result = posix_spawn(&child, argv[0], &actions, nil, args, env)
        close(fds[1])
        guard result == 0 else {
            close(fds[0])
            throw BoxError("cannot start \(argv.joined(separator: " ")): \(String(cString: strerror(result)))")
        }
        pid = child
        output = fds[0]
        Thread { [self] in readLines() }.start()
    }

    deinit {
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = waitForExit(timeout: 5)
        }
        close(output)
    }

    private func readLines() {
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(output, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            pending += chunk[0..<n]
            while let newline = pending.firstIndex(of: 10) {
                let text = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                let stamped = Line(text, time: Box.now())
                lines.withLock { $0.append(stamped) }
            }
        }
        if !pending.isEmpty {
            let text = String(decoding: pending, as: UTF8.self)
            lines.withLock { $0.append(Line(text, time: Box.now())) }
        }
        drained.store(true, ordering: .releasing)
    }

    /// Every line so far.
    var log: [Line] { lines.withLock { $0 } }
    var text: [String] { log.map(\.text) }

    /// The first line (after `after` lines) that satisfies `matching`, waiting at most
    /// `timeout` seconds; nil when none came.
    func waitForLine(timeout: Double, after: Int = 0, _ matching: (String) -> Bool) -> (index: Int, line: Line)? {
        let ended = { self.exitStatus != nil && self.drained.load(ordering: .acquiring) }
        // Once the process ended and its output is all in, one last look is enough.
        let found = Box.firstNew({ log }, after: after, timeout: timeout, giveUp: ended) { matching($0.text) }
            ?? (ended() ? Box.firstNew({ log }, after: after, timeout: 0) { matching($0.text) } : nil)
        return found.map { ($0.index, $0.element) }
    }

    /// Waits for a line containing `text`; throws with the log when it does not come.
    @discardableResult
    func expectLine(containing text: String, timeout: Double, after: Int = 0) throws -> (index: Int, line: Line) {
        guard let found = waitForLine(timeout: timeout, after: after, { $0.contains(text) }) else {
            throw BoxError("no line \"\(text)\" from \(argv[0]) within \(timeout) s"
                + (exitStatus.map { " (it exited with status \($0))" } ?? "") + "; its output:\n" + self.text.joined(separator: "\n"))
        }
        return found
    }

    /// The exit status once the process ended (a signal as 128 + its number).
    var exitStatus: Int32? {
        if let status = ended.withLock({ $0 }) { return status }
        var status: Int32 = 0
        guard waitpid(pid, &status, WNOHANG) == pid else { return nil }
        let code = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
        ended.withLock { $0 = code }
        return code
    }

    /// Waits at most `timeout` seconds for the process to end; its status, nil if it did not.
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Box.now() + Int64(timeout * 1e9)
        while Box.now() < deadline {
            if let status = exitStatus { return status }
            Box.hold(milliseconds: 10)
        }
        return nil
    }

    /// Sends `signal`.
    func send(_ signal: Int32) { kill(pid, signal) }

    /// Runs `argv` to its end (at most `timeout` seconds); its status and output lines.
    static func run(_ argv: [String], environment: [String: String] = [:], timeout: Double = 120) throws
        -> (status: Int32, output: [String]) {
        let process = try BoxProcess(argv, environment: environment)
        guard let status = process.waitForExit(timeout: timeout) else {
            process.send(SIGKILL)
            throw BoxError("\(argv.joined(separator: " ")) did not end within \(timeout) s; its output:\n"
                + process.text.joined(separator: "\n"))
        }
        // The last lines may still be on their way through the pipe.
        let deadline = Box.now() + 5_000_000_000
        while !process.drained.load(ordering: .acquiring) && Box.now() < deadline { Box.hold(milliseconds: 5) }
        return (status, process.text)
    }

    /// Runs `argv` and throws with its output unless it exits 0.
    @discardableResult
    static func check(_ argv: [String], environment: [String: String] = [:], timeout: Double = 120) throws -> [String] {
        let (status, output) = try run(argv, environment: environment, timeout: timeout)
        guard status == 0 else {
            throw BoxError("\(argv.joined(separator: " ")) exited with status \(status):\n" + output.joined(separator: "\n"))
        }
        return output
    }
}
