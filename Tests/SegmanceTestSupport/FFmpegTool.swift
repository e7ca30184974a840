import Foundation

/// Makes real media files with the `ffmpeg` command-line tool (Debian package `ffmpeg`, a
/// test dependency in deploy/install-deps.sh): AAC and ALAC in MP4, videos with a sound
/// track, Opus and Vorbis in Matroska/WebM, WMA.
public enum FFmpegTool {
    public struct Failure: Error, CustomStringConvertible {
        public var arguments: [String]
        public var output: String
        public var description: String { "ffmpeg \(arguments.joined(separator: " ")) failed: \(output)" }
    }

    /// Runs `ffmpeg -nostdin -hide_banner -loglevel error -y ARGUMENTS`.
    public static func run(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/ffmpeg")
        process.arguments = ["-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(arguments: arguments, output: String(decoding: output, as: UTF8.self))
        }
    }

    /// Encodes the audio file `source` into `path` with `codec` arguments, e.g.
    /// `["-c:a", "aac", "-b:a", "160k"]`.
    public static func encode(_ source: String, to path: String, _ codec: [String]) throws {
        try run(["-i", source] + codec + [path])
    }

    /// A video: FFmpeg's test pattern (`testsrc`, H.264, 10 frames a second, 160×120) for as
    /// long as `source` lasts, with `source` as its sound in `audioCodec`.
    public static func video(with source: String, to path: String, audioCodec: [String] = ["-c:a", "aac"],
                             videoCodec: [String] = ["-c:v", "libx264", "-preset", "ultrafast"]) throws {
        try run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10", "-i", source, "-map", "0:v", "-map", "1:a",
                 "-shortest"] + videoCodec + audioCodec + [path])
    }

    /// A video with no sound at all.
    public static func silentVideo(seconds: Double, to path: String) throws {
        try run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=\(seconds)",
                 "-c:v", "libx264", "-preset", "ultrafast", path])
    }
}
