import LinuxSystem
import SegmanceCore
import SegmanceMedia
#if canImport(Glibc)
import Glibc
#endif

/// Runs each import in a child process: `executable` (the daemon's own binary) with the
/// hidden `import-worker` subcommand, which runs `ImportWorker` and reports each event as a
/// line on a pipe. The daemon stays small and safe: the decoders' and SQLite's code and
/// memory live in the child, and a decoder that crashes on a hostile file kills the child,
/// not the appliance. The control loop polls `descriptors` (the report pipe, then a pidfd
/// that is readable once the child has ended) and calls `takeEvents()`; nothing here
/// blocks, the child is reaped with `waitpid(WNOHANG)` once its pidfd says it ended.
///
/// A child that ends without its `finished` line (a signal, a limit, an exit status) is
/// reported as the import stopping on the file it was on; the library is left as before
/// that routine (the import is crash-safe) and the next open sweeps what it left.
public final class ProcessImportRunner: ImportRunner {
    public let executable: String
    public let library: String
    public let sampleRate: Int
    /// Extra environment for the child (`NAME=value`), after this process's own.
    public let environment: [String]
    /// Told when a worker starts ("import: worker 1234 importing /media/sda1").
    public var log: ((String) -> Void)?

    private var child: Child?
    private var events: [ImportEvent] = []

    /// A running worker and what it has said so far.
    private struct Child {
        var pid: pid_t
        /// Readable once the child has ended; closed with the last copy of the child.
        var process: ProcessDescriptor
        var pidfd: Int32 { process.fileDescriptor }
        /// The report pipe's read end; -1 once it reached its end.
        var pipe: Int32
        var pending: [UInt8] = []
        var stick: String
        var cancelled = false
        var finished = false
        /// What the child said last: the routine under way and the file it was on.
        var progress: ImportProgress?
        var file: String?
        var summary = ImportSummary()
    }

    public init(executable: String = "/proc/self/exe", library: String, sampleRate: Int, environment: [String] = []) {
        self.executable = executable
        self.library = library
        self.sampleRate = sampleRate
        self.environment = environment
    }

    deinit {
        if let child {
            kill(child.pid, SIGKILL)
            var status: Int32 = 0
            waitpid(child.pid, &status, 0)
            if child.pipe >= 0 { close(child.pipe) }
        }
    }

    public var isRunning: Bool { child != nil }

    /// The child's pid while an import runs (for tests and the log).
    public var pid: pid_t? { child?.pid }

    /// What the loop polls for POLLIN: the report pipe while it is open, the child's pidfd.
    public var descriptors: [Int32] {
        guard let child else { return [] }
        return child.pipe >= 0 ? [child.pipe, child.pidfd] : [child.pidfd]
    }

    public func start(_ path: String, label: String?) {
        guard child == nil else { return }
        do {
            let started = try spawn(path, label: label)
            child = started
            log?("import: worker \(started.pid) importing \(path)")
        } catch {
            events.append(.problem(StickProblem(path: ".", reason: "import not started: \(error)")))
            events.append(.finished(ImportSummary(stopped: "import failed")))
        }
    }

    /// Kills the child (the stick is gone): the routine it was on is abandoned whole, as a
    /// crash of the import at any moment leaves it.
    public func cancel() {
        guard var running = child else { return }
        running.cancelled = true
        child = running
        kill(running.pid, SIGKILL)
    }

    public func takeEvents() -> [ImportEvent] {
        if var running = child {
            read(&running)
            var status: Int32 = 0
            if waitpid(running.pid, &status, WNOHANG) == running.pid {
                // Ended: what it wrote before it ended is all in the pipe.
                read(&running)
                end(running, status: status)
                child = nil
            } else {
                child = running
            }
        }
        defer { events.removeAll() }
        return events
    }

    /// Blocks until the running import (if any) has ended; for shutdown and tests.
    public func waitUntilFinished() -> [ImportEvent] {
        var all = takeEvents()
        while child != nil {
            var set = descriptors.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
            _ = poll(&set, nfds_t(set.count), -1)
            all += takeEvents()
        }
        return all
    }

    private func spawn(_ stick: String, label: String?) throws(SystemError) -> Child {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SystemError("pipe", path: "import report") }
        defer { close(fds[1]) }
        // Close-on-exec on both: no other child of the daemon may hold the write end open.
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        _ = fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK)

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // dup2 clears close-on-exec on 3: the one descriptor the worker gets beyond 0-2.
        posix_spawn_file_actions_adddup2(&actions, fds[1], 3)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The daemon blocks its signals for its signalfd; the worker must get them (and die
        // of SIGSEGV, SIGPIPE) as a plain process does.
        var none = sigset_t(), all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        // `--label=…` in one word: a label may start with a dash.
        let arguments = [executable, "import-worker", "--library", library, "--rate", String(sampleRate),
                         "--report-fd", "3"] + (label.map { ["--label=\($0)"] } ?? []) + ["--", stick]
        var inherited: [String] = []
        var entry = Glibc.environ
        while let line = entry.pointee {
            inherited.append(String(cString: line))
            entry += 1
        }
        let argv = arguments.map { strdup($0) } + [nil]
        let env = (inherited + environment).map { strdup($0) } + [nil]
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable, &actions, &attributes, argv, env)
        guard code == 0 else {
            close(fds[0])
            errno = code
            throw SystemError("posix_spawn", path: executable)
        }
        let process: ProcessDescriptor
        do {
            process = try ProcessDescriptor(pid: pid, subject: executable)
        } catch {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(fds[0])
            throw error
        }
        return Child(pid: pid, process: process, pipe: fds[0], stick: stick)
    }

    /// Reads what the pipe holds and turns its complete lines into events.
    private func read(_ child: inout Child) {
        guard child.pipe >= 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = Glibc.read(child.pipe, &buffer, buffer.count)
            if n > 0 {
                child.pending += buffer[0..<n]
                continue
            }
            if n < 0 && errno == EINTR { continue }
            if n == 0 {
                // The worker closed its end (it is ending): only its pidfd is polled now.
                close(child.pipe)
                child.pipe = -1
            }
            break
        }
        while let newline = child.pending.firstIndex(of: 0x0A) {
            let text = String(decoding: child.pending[..<newline], as: UTF8.self)
            child.pending.removeSubrange(...newline)
            guard let line = ImportReportLine(parsing: Substring(text)) else { continue }
            switch line {
            case .file(let file):
                child.file = file
            case .event(let event):
                switch event {
                case .progress(let progress):
                    if progress.title != child.progress?.title { child.file = nil }
                    child.progress = progress
                case .routine(_, let outcome):
                    child.progress = nil
                    child.file = nil
                    switch outcome {
                    case .added: child.summary.added += 1
                    case .addedBeside:
                        child.summary.added += 1
                        child.summary.renamed += 1
                    case .replaced: child.summary.replaced += 1
                    case .unchanged: child.summary.unchanged += 1
                    }
                case .routineFailed:
                    child.progress = nil
                    child.file = nil
                    child.summary.failed += 1
                case .finished:
                    child.finished = true
                default:
                    break
                }
                events.append(event)
            }
        }
    }

    /// The child has ended: when it did not finish its report, says why and on what.
    private func end(_ child: Child, status: Int32) {
        if child.pipe >= 0 { close(child.pipe) }
        guard !child.finished else { return }
        var summary = child.summary
        let title = child.progress?.title
        let place = child.file ?? title.map { "routine \"\($0)\"" } ?? "the stick"
        let shown = child.file ?? "."
        if child.cancelled {
            let reason = "the import was cancelled: the stick went away"
            if let title {
                summary.failed += 1
                events.append(.routineFailed(title: title, reason: reason))
                events.append(.problem(StickProblem(path: shown, reason: "routine \"\(title)\" not imported: \(reason)")))
            }
            summary.stopped = "stick removed"
        } else {
            let cause = Self.describe(status)
            let reason = "import stopped: the importer \(cause) on \(place)"
            if let title {
                summary.failed += 1
                events.append(.routineFailed(title: title, reason: reason))
            }
            events.append(.problem(StickProblem(path: shown, reason: reason)))
            summary.stopped = "importer crashed"
        }
        events.append(.finished(summary))
    }

    /// "crashed (signal 11)", "ran out of CPU time (signal 24)", "exited with status 2".
    static func describe(_ status: Int32) -> String {
        let signal = status & 0x7F
        if signal == 0 { return "exited with status \((status >> 8) & 0xFF)" }
        switch signal {
        case SIGXCPU: return "ran out of CPU time (signal \(signal))"
        case SIGKILL: return "was killed (signal \(signal))"
        default: return "crashed (signal \(signal))"
        }
    }
}
