import AudioDecoding
import ChildProcess
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
        // A 1 MiB pipe (the unprivileged maximum) holds a few blocks of audio, so that the
        // helper decodes while this side converts instead of taking turns.
        let child: PipedChild
        do {
            child = try PipedChild.spawn(helper, [helper, kind, path], outputPipeBytes: 1 << 20)
        } catch where error.call == "posix_spawn" {
            ended = true
            throw AudioDecodeError(path: path, reason: .unsupported(
                "\(kind): its decoder \(helper) cannot be started (\(error.message))"))
        } catch {
            ended = true
            throw AudioDecodeError(path: path, reason: .unreadable("\(error.call): \(error.message)"))
        }
        pid = child.pid
        audio = child.output
        report = child.errors
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
        return Outcome(status: signaled ? nil : (status >> 8) & 0xff, signal: signaled ? status & 0x7f : nil,
                       lines: lines)
    }

    @discardableResult
    private func reap() -> Int32 {
        ended = true
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        return status
    }
}
