import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A running `segmance-ffmpeg KIND FILE`: its audio read from a pipe, its report read from
/// another once the audio has ended. Owns the pipes and the child; a child still running
/// when this goes away is killed and reaped.
final class FFmpegHelperProcess {
    /// Where the helper is: `SEGMANCE_FFMPEG_HELPER`, else next to this executable (a
    /// build folder, or /usr/bin), else /usr/lib/segmance (the Debian package).
    static func locate() -> String? {
        if let given = ProcessInfo.processInfo.environment["SEGMANCE_FFMPEG_HELPER"] { return given }
        let own = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        for candidate in [own.appendingPathComponent("segmance-ffmpeg").path, "/usr/lib/segmance/segmance-ffmpeg"]
            where access(candidate, X_OK) == 0 {
            return candidate
        }
        return nil
    }

    /// How the helper ended.
    struct Outcome {
        /// Exit status, or nil when a signal ended it.
        var status: Int32?
        var signal: Int32?
        /// The report's lines, split at tabs.
        var lines: [[String]]
    }

    private var pid: pid_t = 0
    private var audio: Int32 = -1
    private var report: Int32 = -1
    private var ended = false

    init(helper: String, kind: String, path: String) throws(AudioDecodeError) {
        var out: [Int32] = [-1, -1], err: [Int32] = [-1, -1]
        guard pipe(&out) == 0 else { throw Self.failure(path, "pipe") }
        guard pipe(&err) == 0 else {
            close(out[0]); close(out[1])
            throw Self.failure(path, "pipe")
        }
        // Not inherited by other children this process starts (dup2 into 1 and 2 clears it there).
        for fd in out + err { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        // A 1 MiB pipe (F_SETPIPE_SZ, Linux; the unprivileged maximum) holds a few blocks of
        // audio, so that the helper decodes while this side converts instead of taking turns.
        _ = fcntl(out[0], 1031, Int32(1 << 20))
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, out[1], 1)
        posix_spawn_file_actions_adddup2(&actions, err[1], 2)
        let argv: [UnsafeMutablePointer<CChar>?] = ([helper, kind, path] as [String]).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        let code = posix_spawn(&pid, helper, &actions, nil, argv, environ)
        close(out[1])
        close(err[1])
        audio = out[0]
        report = err[0]
        guard code == 0 else {
            close(audio); close(report)
            ended = true
            throw AudioDecodeError(path: path, reason: .unsupported(
                "\(kind): its decoder \(helper) cannot be started (\(String(cString: strerror(code))))"))
        }
    }

    private static func failure(_ path: String, _ function: String) -> AudioDecodeError {
        AudioDecodeError(path: path, reason: .unreadable("\(function): \(String(cString: strerror(errno)))"))
    }

    deinit {
        if !ended { kill(pid, SIGKILL); reap() }
        if audio >= 0 { close(audio) }
        if report >= 0 { close(report) }
    }

    /// Reads until `buffer` is full or the audio ends; the bytes read.
    func fill(_ buffer: UnsafeMutableRawBufferPointer) -> Int {
        var got = 0
        while got < buffer.count {
            let n = read(audio, buffer.baseAddress! + got, buffer.count - got)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            got += n
        }
        return got
    }

    /// Stops the helper (an import cancelled, a sink that failed).
    func stop() {
        guard !ended else { return }
        kill(pid, SIGKILL)
        reap()
    }

    /// Waits for the helper to end and reads its report.
    func finish() -> Outcome {
        var text: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        // Drain what is left of the audio (nothing, unless the reader stopped early).
        while chunk.withUnsafeMutableBytes({ fill($0) }) > 0 {}
        while true {
            let n = read(report, &chunk, chunk.count)
            if n < 0 && errno == EINTR { continue }
            if n <= 0 || text.count > 1 << 20 { break }
            text += chunk[0..<n]
        }
        let status = reap()
        let lines = String(decoding: text, as: UTF8.self).split(separator: "\n")
            .map { $0.split(separator: "\t", omittingEmptySubsequences: false).map(String.init) }
        let signaled = status & 0x7f != 0
        return Outcome(status: signaled ? nil : (status >> 8) & 0xff, signal: signaled ? status & 0x7f : nil, lines: lines)
    }

    @discardableResult
    private func reap() -> Int32 {
        ended = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
