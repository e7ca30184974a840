import FFmpeg
import Foundation
import StickTransfer
#if canImport(Glibc)
import Glibc
#endif
import SegmanceLibrary
import SegmanceCore
import SndFile

/// The import rows of formats FFmpeg decodes: AAC and ALAC in .m4a and the sound of an MP4
/// video (H.264 picture, AAC sound), made from the same 60 s of music by the `ffmpeg` tool.
/// The peer is FFmpeg's libraries decoding the same file alone (demux + decode, no
/// conversion), measured in the same run.
func benchImportFFmpegFormats(dir: String, seconds: Int, budget: Double) {
    let rate = 44_100
    let source = "\(dir)/ffmpeg-source.wav"
    try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
    writeBenchWAV(benchMusic(rate: rate, seconds: seconds), rate: rate, to: source)
    let rows: [(name: String, file: String, arguments: [String])] = [
        ("AAC 44.1 kHz (.m4a)", "song.m4a", ["-i", source, "-c:a", "aac", "-b:a", "192k"]),
        ("ALAC 44.1 kHz (.m4a)", "song.m4a", ["-i", source, "-c:a", "alac"]),
        ("MP4 video, AAC sound", "class.mp4", ["-f", "lavfi", "-i", "testsrc=size=640x360:rate=25", "-i", source,
                                               "-shortest", "-map", "0:v", "-map", "1:a", "-c:v", "libx264",
                                               "-preset", "veryfast", "-c:a", "aac", "-b:a", "192k"]),
    ]
    for (i, row) in rows.enumerated() where importSelected(row.name) {
        let stick = "\(dir)/ffmpeg-import-\(i)/stick"
        try! FileManager.default.createDirectory(atPath: stick + "/Routine", withIntermediateDirectories: true)
        let path = "\(stick)/Routine/\(row.file)"
        let status = system(
            (["ffmpeg", "-nostdin", "-hide_banner", "-loglevel", "error", "-y"] + row.arguments + [path])
            .map { "'\($0)'" }.joined(separator: " "))
        guard status == 0 else { fail("ffmpeg could not make \(path) (is the ffmpeg package installed?)") }

        let decodeWall = bestOf(3) {
            let decoded = ffmpegDecodeAlone(path)
            precondition(
                abs(Double(decoded) / Double(rate) - Double(seconds)) < 0.1, "FFmpeg decoded \(decoded) frames")
        }
        var importer: Importer!
        var cpu = 0.0
        let wall = bestOf(importRuns) { run in
            importer = Importer(library: try! Library(directory: "\(dir)/ffmpeg-import-\(i)/lib\(run)"))
            // This process and the segmance-ffmpeg helper it starts.
            let startCPU = cpuSeconds() + childrenCPUSeconds()
            let summary = importer.run(stick) { _ in }
            cpu = cpuSeconds() + childrenCPUSeconds() - startCPU
            precondition(summary == ImportSummary(added: 1), "import failed: \(summary)")
        }
        let againStart = wallSeconds()
        precondition(importer.run(stick) { _ in } == ImportSummary(unchanged: 1))
        let againWall = wallSeconds() - againStart
        let speed = Double(seconds) / wall
        let pad = String(repeating: " ", count: max(0, 20 - row.name.count))
        print("  \(row.name):\(pad) \(Int(speed))x real time (\(format(wall)) s wall, \(format(cpu)) s CPU); "
                + "FFmpeg decode alone \(Int(Double(seconds) / decodeWall))x (import/decode = "
                + "\(format(decodeWall / wall, 2))); "
              + "identical re-import \(format(againWall)) s")
        let figure = BenchFigure(
            what: "import \(row.name), \(seconds) s file, best of \(importRuns)", figure: "\(Int(speed))x real time",
            budget: "≥ \(Int(budget))x", met: speed >= budget,
            peer: "FFmpeg decode alone \(Int(Double(seconds) / decodeWall))x")
        BenchBudget.record(figure)
    }
}

/// FFmpeg alone: demux the first audio stream and decode every frame; returns the frames.
private func ffmpegDecodeAlone(_ path: String) -> Int {
    let input = try! MediaInput(readingFrom: path)
    let audio = input.streams.first { $0.kind == .audio }!
    input.discardAll(except: audio.index)
    let decoder = try! StreamDecoder(input, stream: audio.index)
    let packet = try! Packet(), frame = try! Frame()
    var frames = 0
    func drain() {
        while try! decoder.receive(frame) == .frame { frames += frame.sampleCount }
    }
    while try! input.read(into: packet) {
        guard packet.streamIndex == audio.index else { continue }
        while !(try! decoder.send(packet)) { drain() }
        drain()
    }
    _ = try! decoder.send(nil)
    drain()
    return frames
}

/// Writes interleaved stereo floats as a 16-bit WAV, in blocks.
private func writeBenchWAV(_ music: [Float], rate: Int, to path: String) {
    let file = try! SoundFile(writingTo: path, format: .wavPCM16, sampleRate: rate, channels: 2)
    for start in stride(from: 0, to: music.count, by: 8192) {
        try! music[start..<min(music.count, start + 8192)].withUnsafeBufferPointer { try file.write($0) }
    }
    try! file.close()
}

/// CPU seconds of the children that have ended (the decoding helper).
func childrenCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_CHILDREN.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(
        usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// The shortest wall time of `runs` runs of `body` (given the run's number): the machine's
/// other work only ever adds time.
/// Imports timed per format: best of 3, of 5 with `--check` (a loaded machine's stall in one
/// run does not decide; a slower import is slower in all five).
let importRuns = BenchBudget.checking ? 5 : 3

func bestOf(_ runs: Int, _ body: (Int) -> Void) -> Double {
    var best = Double.infinity
    for run in 0..<runs {
        let start = wallSeconds()
        body(run)
        best = min(best, wallSeconds() - start)
    }
    return best
}

func bestOf(_ runs: Int, _ body: () -> Void) -> Double { bestOf(runs) { _ in body() } }
