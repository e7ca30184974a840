import ChildProcess
import Foundation
import Soxr
#if canImport(Glibc)
import Glibc
#endif

/// Why speech could not be made.
public struct SpeechError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The synthesizer is not installed (or cannot be started).
        case unavailable(String)
        /// It ran and failed, or what it wrote is not the sound expected.
        case failed(String)
    }
    public var text: String
    public var reason: Reason

    public init(text: String, _ reason: Reason) {
        self.text = text
        self.reason = reason
    }

    public var description: String {
        switch reason {
        case .unavailable(let why): "speech for \"\(text)\" unavailable: \(why)"
        case .failed(let why): "speech for \"\(text)\" failed: \(why)"
        }
    }
}

/// Words spoken by espeak-ng (the Debian package), run as a child process with
/// `posix_spawn`: `espeak-ng -v VOICE -s WPM --stdout TEXT`, its WAV read from a pipe, then
/// made into a count's sound at the output rate (`CountSound.make`).
public struct EspeakSpeech: Equatable, Sendable {
    /// The program: a path, or a name looked up in `PATH`.
    public var executable: String
    public var voice: String
    public var wordsPerMinute: Int

    /// American English at 200 words a minute: "seven", the longest count, lasts 0.40 s, so
    /// every count fits in a beat up to 150 BPM.
    public init(executable: String = "espeak-ng", voice: String = "en-us", wordsPerMinute: Int = 200) {
        self.executable = executable
        self.voice = voice
        self.wordsPerMinute = wordsPerMinute
    }

    /// What the sound depends on besides the text and the rate (a cache's key).
    public var identity: String { "espeak-ng \(voice) \(wordsPerMinute)wpm" }

    /// Bytes of WAV read at most (a second at 22 kHz is 44 KB; a word is under a second).
    static let maxBytes = 4 << 20
    /// Milliseconds without output after which the child is taken as hung and killed.
    static let silenceLimit: Int32 = 10_000

    /// `text` spoken, as a count's sound at `sampleRate` (see `CountSound.make`).
    public func speak(_ text: String, sampleRate: Int) throws(SpeechError) -> [Float] {
        let (samples, rate) = try run(text)
        return try CountSound.make(samples, rate: rate, sampleRate: sampleRate, text: text)
    }

    /// The program's path: `executable` if it holds a slash, else the first in `PATH`.
    func resolved() -> String? {
        if executable.contains("/") { return access(executable, X_OK) == 0 ? executable : nil }
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") where access("\(dir)/\(executable)", X_OK) == 0 {
            return "\(dir)/\(executable)"
        }
        return nil
    }

    /// Runs the program; its mono 16-bit samples and their rate.
    func run(_ text: String) throws(SpeechError) -> (samples: [Int16], rate: Int) {
        guard let program = resolved() else {
            throw SpeechError(text: text,
                              .unavailable("\(executable) not found (install the Debian package espeak-ng)"))
        }
        // "--" so that a text is never taken for an option.
        let args = [program, "-v", voice, "-s", "\(wordsPerMinute)", "--stdout", "--", text]
        let child: PipedChild
        do {
            child = try PipedChild.spawn(program, args)
        } catch where error.call == "posix_spawn" {
            throw SpeechError(text: text, .unavailable("\(program) cannot be started: \(error.message)"))
        } catch {
            throw SpeechError(text: text, .failed("\(error.call): \(error.message)"))
        }
        let pid = child.pid
        defer { close(child.output); close(child.errors) }
        let (wav, message, hung) = Self.drain(child.output, child.errors)
        if hung { kill(pid, SIGKILL) }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let said = String(decoding: message.prefix(300), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if hung {
            throw SpeechError(text: text, .failed("\(program) wrote nothing for \(Self.silenceLimit / 1000) s; killed"))
        }
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else {
            let how = status & 0x7f != 0 ? "signal \(status & 0x7f)" : "status \((status >> 8) & 0xff)"
            throw SpeechError(text: text, .failed("\(program) ended with \(how)\(said.isEmpty ? "" : ": \(said)")"))
        }
        return try Self.parseWAV(wav, text: text)
    }

    /// Reads both pipes to their ends (bounded); whether the child went silent too long.
    static func drain(_ out: Int32, _ err: Int32) -> (out: [UInt8], err: [UInt8], hung: Bool) {
        var fds = [pollfd(fd: out, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: err, events: Int16(POLLIN), revents: 0)]
        var bytes: [[UInt8]] = [[], []]
        var chunk = [UInt8](repeating: 0, count: 65536)
        while fds.contains(where: { $0.fd >= 0 }) {
            let ready = poll(&fds, 2, silenceLimit)
            if ready < 0 && errno == EINTR { continue }
            if ready <= 0 { return (bytes[0], bytes[1], true) }
            for i in 0..<2 where fds[i].fd >= 0 && fds[i].revents != 0 {
                let n = read(fds[i].fd, &chunk, chunk.count)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 || bytes[i].count >= maxBytes { fds[i].fd = -1; continue }
                bytes[i] += chunk[0..<n]
            }
        }
        return (bytes[0], bytes[1], false)
    }

    /// The samples of a mono 16-bit PCM WAV. espeak-ng streaming to a pipe cannot seek back
    /// to write the sizes, so the data chunk runs to the end whatever its header says.
    static func parseWAV(_ bytes: [UInt8], text: String) throws(SpeechError) -> (samples: [Int16], rate: Int) {
        func u32(_ at: Int) -> Int {
            Int(bytes[at]) | Int(bytes[at + 1]) << 8 | Int(bytes[at + 2]) << 16 | Int(bytes[at + 3]) << 24
        }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        func tag(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        func bad(_ why: String) -> SpeechError {
            SpeechError(text: text, .failed("its output is not a mono 16-bit WAV: \(why)"))
        }
        guard bytes.count >= 12, tag(0) == "RIFF", tag(8) == "WAVE" else {
            throw bad("no RIFF/WAVE header (\(bytes.count) bytes)")
        }
        var at = 12
        var rate = 0
        while at + 8 <= bytes.count {
            let id = tag(at), size = u32(at + 4)
            if id == "fmt " {
                guard at + 24 <= bytes.count, size >= 16 else { throw bad("a short fmt chunk") }
                guard u16(at + 8) == 1, u16(at + 10) == 1, u16(at + 22) == 16 else {
                    throw bad("format \(u16(at + 8)), \(u16(at + 10)) channels, \(u16(at + 22)) bits")
                }
                rate = u32(at + 12)
            } else if id == "data" {
                guard rate >= 8000, rate <= 192_000 else {
                    throw bad("rate \(rate) Hz, or no fmt chunk before the data")
                }
                let data = bytes[(at + 8)...]
                var samples = [Int16](repeating: 0, count: data.count / 2)
                var i = data.startIndex
                for k in 0..<samples.count {
                    samples[k] = Int16(bitPattern: UInt16(data[i]) | UInt16(data[i + 1]) << 8)
                    i += 2
                }
                return (samples, rate)
            }
            guard size < bytes.count else { throw bad("a chunk '\(id)' of \(size) bytes") }
            at += 8 + size + (size & 1)
        }
        throw bad("no data chunk")
    }
}

/// A count's sound from speech: at the output rate, the leading and trailing silence cut
/// (the first sample is the word's onset: the first above `onsetThreshold`), the peak at
/// `peak`, the last `fadeSeconds` fading to 0.
public enum CountSound {
    /// A sample at or above this (of full scale) is sound; below it, before the first and
    /// after the last such sample, silence that is cut.
    public static let onsetThreshold: Float = 0.01
    /// The peak of every word: that of the accented tick.
    public static let peak: Float = 0.7
    public static let fadeSeconds = 0.005
    /// The longest word kept, in seconds.
    public static let maxSeconds = 1.5

    public static func make(_ samples: [Int16], rate: Int, sampleRate: Int,
                            text: String) throws(SpeechError) -> [Float] {
        var floats = samples.map { Float($0) / 32768 }
        if rate != sampleRate {
            do {
                let resampler = try Resampler(inputRate: Double(rate), outputRate: Double(sampleRate), channels: 1)
                floats = try resampler.convert(floats)
            } catch {
                throw SpeechError(text: text, .failed("resampling \(rate) Hz to \(sampleRate) Hz: \(error)"))
            }
        }
        let loudest = floats.reduce(Float(0)) { max($0, abs($1)) }
        guard loudest.isFinite, loudest > 0.01 else {
            throw SpeechError(text: text, .failed("silence (peak \(loudest) of full scale)"))
        }
        let gain = peak / loudest
        floats = floats.map { $0 * gain }
        guard let first = floats.firstIndex(where: { abs($0) >= onsetThreshold }),
              let last = floats.lastIndex(where: { abs($0) >= onsetThreshold }) else {
            throw SpeechError(text: text, .failed("no sound above the threshold"))
        }
        var word = Array(floats[first...min(last, first + Int(maxSeconds * Double(sampleRate)) - 1)])
        let fade = min(word.count - 1, max(1, Int(fadeSeconds * Double(sampleRate))))
        for i in 0..<fade {
            word[word.count - 1 - i] *= Float(i) / Float(fade)
        }
        return word
    }
}
