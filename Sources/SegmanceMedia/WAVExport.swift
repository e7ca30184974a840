import LinuxSystem
import SndFile
#if canImport(Glibc)
import Glibc
#endif

/// Writes decoded stereo 16-bit PCM as a WAV file (libsndfile) and fsyncs it: the audio of
/// a routine saved to a stick, which decodes back to the same samples.
public enum WAVExport {
    /// Bytes a WAV of `frames` stereo 16-bit frames takes (the 44-byte header and the data).
    public static func size(frames: Int64) -> Int64 { 44 + frames * 4 }

    /// Writes `frames` interleaved stereo frames from `samples` to a new file at `path`,
    /// then fsyncs it. Throws a description of what failed.
    public static func write(_ samples: UnsafePointer<Int16>, frames: Int64, rate: Int, to path: String) throws {
        let file = try SoundFile(writingTo: path, format: .wavPCM16, sampleRate: rate, channels: 2)
        let chunk: Int64 = 1 << 16
        var done: Int64 = 0
        while done < frames {
            let count = min(chunk, frames - done)
            try file.write(UnsafeBufferPointer(start: samples + Int(done) * 2, count: Int(count) * 2))
            done += count
        }
        try file.close()
        try FileSync.file(path)
    }
}

/// fsync of a file or a folder by path, so that what was written or renamed survives a
/// power cut or a stick pulled out right after.
public enum FileSync {
    public struct Failure: Error, CustomStringConvertible {
        public var call: String
        public var path: String
        public var code: Int32
        public var description: String { "\(call)(\(path)): \(SystemError.text(code))" }
    }

    public static func file(_ path: String) throws(Failure) { try sync(path, flags: O_RDONLY | O_CLOEXEC) }

    public static func folder(_ path: String) throws(Failure) {
        try sync(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    }

    private static func sync(_ path: String, flags: Int32) throws(Failure) {
        let fd = open(path, flags)
        guard fd >= 0 else { throw Failure(call: "open", path: path, code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw Failure(call: "fsync", path: path, code: errno) }
    }
}
