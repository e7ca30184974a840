import Foundation
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import SndFile
import Testing

/// A stick as a dancer brings it from a Mac: every file with its `._NAME` AppleDouble
/// sidecar, a phone's AAC .m4a, an iTunes ALAC .m4a, a class video (.mp4) and the usual
/// formats — checked and imported by the real `segmance` command.
@Suite(.tags(.integration)) struct MacStickImportTests {
    let temp = TempDirs()

    /// Runs the built `segmance` with `arguments`; its exit status and output.
    private func segmance(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SegmanceBinary.path)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }

    /// FFmpeg's libraries (libavcodec pulls in ~120 more) stay out of `segmance` and the
    /// daemon: only the helper process `segmance-ffmpeg` loads them.
    @Test func segmanceDoesNotLoadFFmpeg() throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: SegmanceBinary.path)
        process.arguments = ["--help"]
        process.environment = ["LD_DEBUG": "libs"]
        let pipe = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = pipe
        try process.run()
        let loaded = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(loaded.contains("libsndfile.so"), "the loader's trace lists the libraries")
        #expect(!loaded.contains("libavcodec.so"))
        #expect(!loaded.contains("libavformat.so"))
    }

    @Test func everyPartImportsAtItsSourcesLength() throws {
        let root = try temp.make("mac-stick")
        let folder = root + "/From the Mac"
        try TestFiles.mkdir(folder)
        let sources = try temp.make("sources")
        let seconds = 3.0
        let music48 = Signals.music(rate: 48000, frames: Int(seconds * 48000))
        try TestFiles.write(music48, to: sources + "/music48.wav", rate: 48000)
        try TestFiles.write(Signals.music(rate: 44100, frames: Int(seconds * 44100)), to: sources + "/music44.wav", rate: 44100)

        try FFmpegTool.encode(sources + "/music48.wav", to: folder + "/01 Phone.m4a", ["-c:a", "aac", "-b:a", "160k"])
        try FFmpegTool.encode(sources + "/music44.wav", to: folder + "/02 iTunes.m4a", ["-c:a", "alac"])
        try FFmpegTool.video(with: sources + "/music48.wav", to: folder + "/03 Class video.mp4")
        try FFmpegTool.encode(sources + "/music44.wav", to: folder + "/04 Download.mp3",
                              ["-c:a", "libmp3lame", "-b:a", "192k", "-id3v2_version", "0"])
        try FFmpegTool.encode(sources + "/music44.wav", to: folder + "/05 Master.flac", ["-c:a", "flac"])
        try FFmpegTool.encode(sources + "/music48.wav", to: folder + "/06 Demo.ogg", ["-c:a", "libvorbis"])
        try FFmpegTool.encode(sources + "/music48.wav", to: folder + "/07 Voice.opus", ["-c:a", "libopus"])
        try FileManager.default.copyItem(atPath: sources + "/music48.wav", toPath: folder + "/08 Studio.wav")
        try FFmpegTool.encode(sources + "/music44.wav", to: folder + "/09 Old.aiff", ["-c:a", "pcm_s16be"])
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        for name in names { try AppleDouble.write(beside: folder + "/" + name) }
        try TestFiles.writeText("junk", to: root + "/.DS_Store")

        let check = try segmance(["stick", "check", root])
        #expect(check.status == 0, "\(check.output)")
        #expect(check.output.contains("1 routine to import, 0 problems"), "\(check.output)")

        let library = try temp.make("library") + "/lib"
        let imported = try segmance(["import", root, "--library", library])
        #expect(imported.status == 0, "\(imported.output)")

        let opened = try Library(directory: library)
        let routine = try #require(try opened.routines().first)
        #expect(routine.title == "From the Mac")
        #expect(routine.parts.map(\.title) == ["Phone", "iTunes", "Class video", "Download", "Master", "Demo",
                                               "Voice", "Studio", "Old"])
        for part in routine.parts {
            let error = abs(Double(part.length) / 48000 - seconds)
            #expect(error <= 0.020, "\(part.title): \(part.length) frames, \(Int(error * 1000)) ms off")
        }
        // The AAC part's audio is the source's waveform.
        let aac = try #require(routine.parts.first)
        let pcm = try Data(contentsOf: URL(fileURLWithPath: opened.store.path(of: aac.audio.id)))
        let samples = pcm.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        #expect(samples.count == Int(aac.length) * 2)
        let (correlation, lag) = Signals.bestCorrelation(samples, music48, start: 48000, window: 8192, maxLag: 1100)
        #expect(correlation > 0.9, "correlation \(correlation) at lag \(lag)")
    }
}
