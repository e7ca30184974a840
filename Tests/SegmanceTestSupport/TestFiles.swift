import Foundation
import Glibc
import SndFile

/// Temporary folders made by one test, removed when the test's suite instance goes away.
public final class TempDirs {
    private var paths: [String] = []

    public init() {}

    public func make(_ label: String = "media") throws -> String {
        let path = try TestFiles.makeTempDir(label)
        paths.append(path)
        return path
    }

    deinit {
        for path in paths { try? FileManager.default.removeItem(atPath: path) }
    }
}

/// Temporary folders and generated audio files for tests (shared by the test targets).
public enum TestFiles {
    /// A fresh, empty temporary directory.
    public static func makeTempDir(_ label: String = "media") throws -> String {
        let path = NSTemporaryDirectory() + "segmance-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    public static func mkdir(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    public static func writeEmpty(_ path: String) throws {
        try Data().write(to: URL(fileURLWithPath: path))
    }

    public static func writeText(_ text: String, to path: String) throws {
        try text.write(toFile: path, atomically: false, encoding: .utf8)
    }

    /// Writes `text` to a new file with mode 0755, to be run. Opened close-on-exec: Foundation
    /// writes through `mkstemp`, whose descriptor stays open in every child another test
    /// spawns meanwhile, for the child's whole life; running the file then fails (ETXTBSY).
    public static func writeExecutable(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o755)
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        defer { close(fd) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// Interleaved float samples of a sine, the same on every channel.
    public static func sine(frequency: Double, rate: Int, frames: Int, channels: Int = 2,
                     amplitude: Double = 0.5) -> [Float] {
        var out = [Float](repeating: 0, count: frames * channels)
        for i in 0..<frames {
            let v = Float(amplitude * sin(2 * Double.pi * frequency * Double(i) / Double(rate)))
            for c in 0..<channels { out[i * channels + c] = v }
        }
        return out
    }

    /// Writes float frames in `format`.
    public static func write(_ samples: [Float], to path: String, format: SoundFileWriteFormat = .wavPCM16,
                      rate: Int = 48000, channels: Int = 2) throws {
        let file = try SoundFile(writingTo: path, format: format, sampleRate: rate, channels: channels)
        try file.write(samples)
        try file.close()
    }

    /// Writes 16-bit frames in `format`.
    public static func write(_ samples: [Int16], to path: String, format: SoundFileWriteFormat = .wavPCM16,
                      rate: Int = 48000, channels: Int = 2) throws {
        let file = try SoundFile(writingTo: path, format: format, sampleRate: rate, channels: channels)
        try file.write(samples)
        try file.close()
    }

    /// A short stereo WAV tone: `seconds` long at `rate`.
    public static func tone(_ path: String, seconds: Double = 1, rate: Int = 48000,
                     format: SoundFileWriteFormat = .wavPCM16) throws {
        try write(sine(frequency: 440, rate: rate, frames: Int(seconds * Double(rate))),
                  to: path, format: format, rate: rate)
    }

    /// Deterministic pseudo-random 16-bit stereo samples (a fixed-seed LCG).
    public static func noise16(frames: Int, seed: UInt32 = 12345) -> [Int16] {
        var state = seed
        return (0..<(frames * 2)).map { _ in
            state = state &* 1_664_525 &+ 1_013_904_223
            return Int16(truncatingIfNeeded: state >> 16)
        }
    }

    /// Cuts a file to its first `bytes` bytes.
    public static func truncate(_ path: String, to bytes: Int) throws {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        try data.prefix(bytes).write(to: URL(fileURLWithPath: path))
    }

    public static func size(_ path: String) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue ?? 0
    }
}
