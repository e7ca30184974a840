import AudioDecoding
import FFmpegHelper
import Foundation
import SegmanceStick
import SegmanceTestSupport
import Testing

/// Files made by the real `ffmpeg` tool, decoded by `SniffingDecoder` (which hands them to
/// `FFmpegDecoder` by their content).
@Suite(.tags(.integration)) struct FFmpegDecoderTests {
    let temp = TempDirs()
    let decoder = SniffingDecoder()

    /// 2 s of music-like stereo at `rate`, as a 16-bit WAV; returns its path and samples.
    private func source(_ dir: String, rate: Int = 48000, seconds: Double = 2) throws -> (String, [Float]) {
        let path = dir + "/source-\(rate).wav"
        let music = Signals.music(rate: rate, frames: Int(seconds * Double(rate)))
        try TestFiles.write(music, to: path, rate: rate)
        return (path, music)
    }

    private func reason(_ path: String) -> String {
        do {
            _ = try decoder.decodeAll(path)
            return "decoded"
        } catch {
            return error.reasonText
        }
    }

    struct Case: CustomStringConvertible, Sendable {
        var name: String
        var file: String
        var codec: [String]
        var video = false
        var description: String { name }
    }

    static let lossyCases: [Case] = [
        Case(name: "AAC in M4A", file: "song.m4a", codec: ["-c:a", "aac", "-b:a", "160k"]),
        Case(name: "AAC in MOV", file: "song.mov", codec: ["-c:a", "aac"]),
        Case(name: "MP4 video with AAC", file: "clip.mp4", codec: ["-c:a", "aac"], video: true),
        Case(name: "MKV video with Opus", file: "clip.mkv", codec: ["-c:a", "libopus"], video: true),
        Case(name: "Opus in MKA", file: "song.mka", codec: ["-c:a", "libopus"]),
        Case(name: "Vorbis in WebM", file: "song.webm", codec: ["-c:a", "libvorbis"]),
        Case(name: "WebM video with Opus", file: "clip.webm", codec: ["-c:a", "libopus"], video: true),
        Case(name: "WMA", file: "song.wma", codec: ["-c:a", "wmav2", "-b:a", "192k"]),
    ]

    /// Lossy audio comes back as long as its source (±20 ms) and with its waveform.
    @Test(arguments: lossyCases)
    func decodesToTheSourcesLengthAndWaveform(_ c: Case) throws {
        let dir = try temp.make()
        let (wav, music) = try source(dir)
        let path = dir + "/" + c.file
        if c.video {
            let codec = c.file.hasSuffix(".mp4") ? ["-c:v", "libx264", "-preset", "ultrafast"] : ["-c:v", "libvpx", "-deadline", "realtime"]
            try FFmpegTool.video(with: wav, to: path, audioCodec: c.codec, videoCodec: codec)
        } else {
            try FFmpegTool.encode(wav, to: path, c.codec)
        }
        let buffer = try decoder.decodeAll(path)
        // WMA (ASF) records no encoder delay: its ~1100 frames of priming stay in, as in any player.
        let delay = c.file.hasSuffix(".wma") ? 2048 : 0
        #expect(abs(buffer.frames - 96000) <= 960 + delay, "\(buffer.frames) frames")
        let (correlation, lag) = Signals.bestCorrelation(buffer.samples, music, start: 24000, window: 8192, maxLag: 1100 + delay)
        #expect(correlation > 0.9, "correlation \(correlation) at lag \(lag)")
        #expect(abs(lag) <= 64 + delay, "lag \(lag)")
    }

    /// ALAC is lossless: 16-bit stereo at the output rate comes back sample for sample.
    @Test func alacAtTheOutputRateIsExact() throws {
        let dir = try temp.make()
        let samples = TestFiles.noise16(frames: 30_000).map { $0 / 2 }
        try TestFiles.write(samples, to: dir + "/noise.wav")
        try FFmpegTool.encode(dir + "/noise.wav", to: dir + "/noise.m4a", ["-c:a", "alac"])
        #expect(try decoder.decodeAll(dir + "/noise.m4a").samples == samples)
    }

    /// ALAC at 44.1 kHz goes through the same soxr conversion as a 44.1 kHz WAV: the same samples.
    @Test func alacAt44100IsConvertedLikeTheSameWav() throws {
        let dir = try temp.make()
        let (wav, _) = try source(dir, rate: 44100, seconds: 1)
        try FFmpegTool.encode(wav, to: dir + "/song.m4a", ["-c:a", "alac"])
        let fromALAC = try decoder.decodeAll(dir + "/song.m4a")
        let fromWAV = try decoder.decodeAll(wav)
        #expect(fromALAC.frames == 48000)
        #expect(fromALAC.samples == fromWAV.samples)
    }

    /// 5.1 AAC is mixed to stereo by the same rule as a 5.1 WAV: only the centre sounds here,
    /// equally on both sides.
    @Test func surroundIsMixedToStereo() throws {
        let dir = try temp.make()
        try FFmpegTool.run(["-f", "lavfi", "-i", "sine=frequency=500:sample_rate=48000:duration=1",
                            "-af", "pan=5.1|FC=c0", "-c:a", "aac", "-b:a", "384k", dir + "/surround.m4a"])
        let buffer = try decoder.decodeAll(dir + "/surround.m4a")
        let left = stride(from: 4000, to: 44000, by: 1).map { Double(buffer[Int64($0), 0]) }
        let right = stride(from: 4000, to: 44000, by: 1).map { Double(buffer[Int64($0), 1]) }
        let rms = (left.reduce(0) { $0 + $1 * $1 } / Double(left.count)).squareRoot()
        // A sine of amplitude 1/8 (FFmpeg's sine source), weighted 0.707 / (1 + 2 × 0.707).
        let expected = 32768.0 / 8 / 2.squareRoot() * (0.70710678 / (1 + 2 * 0.70710678))
        #expect(abs(rms - expected) < expected * 0.1, "rms \(rms), expected \(expected)")
        #expect(zip(left, right).allSatisfy { abs($0 - $1) <= 1 })
    }

    /// A video's first audio stream is the part's audio.
    @Test func theFirstAudioStreamOfAVideoIsTaken() throws {
        let dir = try temp.make()
        try FFmpegTool.run(["-f", "lavfi", "-i", "testsrc=size=160x120:rate=10:duration=1",
                            "-f", "lavfi", "-i", "sine=frequency=1000:sample_rate=48000:duration=1",
                            "-f", "lavfi", "-i", "sine=frequency=3000:sample_rate=48000:duration=1",
                            "-map", "0:v", "-map", "1:a", "-map", "2:a", "-c:v", "libx264", "-preset", "ultrafast",
                            "-c:a", "aac", dir + "/two.mp4"])
        let buffer = try decoder.decodeAll(dir + "/two.mp4")
        var crossings = 0
        for f in Int64(12000)..<Int64(36000) where buffer[f - 1, 0] < 0 && buffer[f, 0] >= 0 { crossings += 1 }
        #expect(abs(crossings - 500) <= 2, "\(crossings) rising zero crossings in 0.5 s")
    }

    /// Content decides, not the name: an M4A called .mp3 and an MP3 called .m4a both decode.
    @Test func contentNotTheNameChoosesTheDecoder() throws {
        let dir = try temp.make()
        let (wav, _) = try source(dir, seconds: 1)
        try FFmpegTool.encode(wav, to: dir + "/a.m4a", ["-c:a", "aac"])
        try FileManager.default.moveItem(atPath: dir + "/a.m4a", toPath: dir + "/really-aac.mp3")
        try FFmpegTool.encode(wav, to: dir + "/b.mp3", ["-c:a", "libmp3lame"])
        try FileManager.default.moveItem(atPath: dir + "/b.mp3", toPath: dir + "/really-mp3.m4a")
        #expect(abs(try decoder.decodeAll(dir + "/really-aac.mp3").frames - 48000) <= 960)
        #expect(abs(try decoder.decodeAll(dir + "/really-mp3.m4a").frames - 48000) <= 2000)
    }

    @Test func rawADTSAAC() throws {
        let dir = try temp.make()
        let (wav, music) = try source(dir)
        try FFmpegTool.encode(wav, to: dir + "/song.aac", ["-c:a", "aac", "-f", "adts"])
        let buffer = try decoder.decodeAll(dir + "/song.aac")
        // ADTS has no edit list: the encoder's 1024 frames of priming stay in.
        #expect(abs(buffer.frames - 96000) <= 2048 + 960)
        #expect(Signals.bestCorrelation(buffer.samples, music, start: 24000, window: 8192, maxLag: 2200).correlation > 0.9)
    }

    // MARK: Errors: the same kinds as libsndfile's

    @Test func empty() throws {
        let dir = try temp.make()
        try TestFiles.writeEmpty(dir + "/e.m4a")
        #expect(reason(dir + "/e.m4a") == "empty file (0 bytes)")
    }

    /// `ffmpeg` writes the index (`moov`) after the audio: a cut file has none.
    @Test func truncatedM4AWithItsIndexAtTheEnd() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/t.m4a", ["-c:a", "aac"])
        let size = try TestFiles.size(dir + "/t.m4a")
        try TestFiles.truncate(dir + "/t.m4a", to: size / 2)
        #expect(reason(dir + "/t.m4a").hasPrefix("truncated file: the file ends at byte \(size / 2), inside its 'mdat' box"))
    }

    /// With the index first (`-movflags +faststart`, as streaming sites write), the audio stops early.
    @Test func truncatedM4AWithItsIndexFirst() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/t.m4a", ["-c:a", "aac", "-movflags", "+faststart"])
        try TestFiles.truncate(dir + "/t.m4a", to: try TestFiles.size(dir + "/t.m4a") / 2)
        #expect(reason(dir + "/t.m4a").hasPrefix("truncated file: the header announces 2.0 s of audio, decoding stops at "))
    }

    @Test(arguments: [("t.mkv", ["-c:a", "libopus"]), ("t.webm", ["-c:a", "libvorbis"])])
    func truncatedMatroska(file: String, codec: [String]) throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/" + file, codec)
        try TestFiles.truncate(dir + "/" + file, to: try TestFiles.size(dir + "/" + file) / 2)
        #expect(reason(dir + "/" + file).hasPrefix("truncated file: the header announces 2.0 s of audio, decoding stops at "))
    }

    @Test func truncatedWMA() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/t.wma", ["-c:a", "wmav2"])
        let size = try TestFiles.size(dir + "/t.wma")
        try TestFiles.truncate(dir + "/t.wma", to: size / 2)
        #expect(reason(dir + "/t.wma") == "truncated file: the header announces \(size) bytes, the file holds \(size / 2)")
    }

    /// Noise written over most of the audio: the packets do not decode.
    @Test func damagedAudio() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/d.m4a", ["-c:a", "aac"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/d.m4a")))
        let mdat = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("mdat".utf8) })
        var state: UInt32 = 99
        for i in (mdat + 200)..<(bytes.count * 3 / 4) {
            state = state &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: state >> 24)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/d.m4a"))
        #expect(reason(dir + "/d.m4a").hasPrefix("damaged audio file: "))
        #expect(reason(dir + "/d.m4a").contains("aac packets do not decode (the first at 0.0 s: FFmpeg avcodec_send_packet: "))
    }

    /// An index FFmpeg refuses: the sample description claims 4294967295 entries.
    @Test func damagedContainer() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir, seconds: 0.5).0, to: dir + "/d.m4a", ["-c:a", "aac"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/d.m4a")))
        let stsd = try #require(bytes.indices.dropLast(4).first { bytes[$0..<($0 + 4)].elementsEqual("stsd".utf8) })
        bytes.replaceSubrange((stsd + 8)..<(stsd + 12), with: [0xFF, 0xFF, 0xFF, 0xFF])
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/d.m4a"))
        #expect(reason(dir + "/d.m4a")
            == "damaged audio file: MP4 data cannot be read (FFmpeg avformat_open_input: Invalid data found when processing input)")
    }

    @Test func aVideoWithoutSoundIsNotAudio() throws {
        let dir = try temp.make()
        try FFmpegTool.silentVideo(seconds: 1, to: dir + "/silent.mp4")
        #expect(reason(dir + "/silent.mp4") == "not an audio file (a video without sound)")
    }

    @Test func anAudioCodecFFmpegDoesNotKnowIsUnsupported() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/u.mka", ["-c:a", "libopus"])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/u.mka")))
        let id = try #require(bytes.indices.dropLast(6).first { bytes[$0..<($0 + 6)].elementsEqual("A_OPUS".utf8) })
        bytes.replaceSubrange(id..<(id + 6), with: Array("A_XYZW".utf8))
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/u.mka"))
        #expect(reason(dir + "/u.mka").hasPrefix("unsupported format (Matroska with an audio codec FFmpeg does not know); supported: MP3, AAC/ALAC (.m4a)"))
    }

    /// FFmpeg runs in a helper process: when it dies on a file, the file is named damaged and
    /// this process goes on. A stand-in helper that crashes, one that exits without a report.
    @Test(arguments: [("kill -SEGV $$", "damaged audio file: FFmpeg crashed on it (signal 11)"),
                      ("exit 3", "damaged audio file: FFmpeg stopped on it (exit status 3)")])
    func aHelperThatDiesFailsOnlyItsFile(script: String, expected: String) throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir, seconds: 0.5).0, to: dir + "/song.m4a", ["-c:a", "aac"])
        let helper = dir + "/dying-helper"
        try TestFiles.writeExecutable("#!/bin/sh\n\(script)\n", to: helper)
        do {
            _ = try FFmpegDecoder(helper: helper).decodeAll(dir + "/song.m4a")
            Issue.record("decoded")
        } catch {
            #expect(error.description == dir + "/song.m4a: " + expected)
        }
    }

    @Test func aMissingHelperIsNamed() throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir, seconds: 0.5).0, to: dir + "/song.m4a", ["-c:a", "aac"])
        #expect(throws: AudioDecodeError(path: dir + "/song.m4a", reason: .unsupported(
            "MP4: its decoder \(dir)/none cannot be started (No such file or directory)"))) {
            _ = try FFmpegDecoder(helper: dir + "/none").decodeAll(dir + "/song.m4a")
        }
    }

    /// An iTunes Store purchase (.m4p): a `drms` sample entry with its `sinf` (FairPlay's
    /// scheme `itun`); a bare `drms` entry; common encryption (`enca`, scheme `cenc`).
    @Test(arguments: [("drms", "itun"), ("drms", nil), ("enca", "cenc")] as [(String, String?)])
    func copyProtected(entry: String, scheme: String?) throws {
        let dir = try temp.make()
        try FFmpegTool.encode(try source(dir).0, to: dir + "/bought.m4a", ["-c:a", "aac"])
        try MP4Edit.protect(dir + "/bought.m4a", entry: entry, scheme: scheme)
        try FileManager.default.moveItem(atPath: dir + "/bought.m4a", toPath: dir + "/bought.m4p")
        let expected = entry == "drms" ? "an iTunes Store purchase with FairPlay DRM" : "encrypted MP4 audio"
        #expect(reason(dir + "/bought.m4p")
            == "copy-protected (\(expected)): only the app it was bought in can play it; use a copy without DRM")
    }
}

/// The scanner takes every extension FFmpeg's files come with; content decides the rest.
@Suite(.tags(.integration)) struct FFmpegStickTests {
    let temp = TempDirs()

    @Test func aStickOfVideosAndPhoneAudioLoads() throws {
        let root = try temp.make("stick")
        let folder = root + "/Class"
        try TestFiles.mkdir(folder)
        let source = folder + "/.source.wav"  // hidden: skipped by the scanner
        try TestFiles.write(Signals.music(rate: 48000, frames: 24000), to: source)
        try FFmpegTool.encode(source, to: folder + "/01 Phone.m4a", ["-c:a", "aac"])
        try FFmpegTool.encode(source, to: folder + "/02 Book.m4b", ["-c:a", "aac", "-f", "mp4"])
        try FFmpegTool.video(with: source, to: folder + "/03 Warm-up.mov")
        try FFmpegTool.video(with: source, to: folder + "/04 Combo.m4v", audioCodec: ["-c:a", "aac"])
        try FFmpegTool.video(with: source, to: folder + "/05 Stage.mkv", audioCodec: ["-c:a", "libopus"])
        try FFmpegTool.video(with: source, to: folder + "/06 Stage.webm", audioCodec: ["-c:a", "libopus"],
                             videoCodec: ["-c:v", "libvpx", "-deadline", "realtime"])
        try FFmpegTool.encode(source, to: folder + "/07 Old.wma", ["-c:a", "wmav2"])
        try FFmpegTool.encode(source, to: folder + "/08 Radio.aac", ["-c:a", "aac", "-f", "adts"])
        try FFmpegTool.encode(source, to: folder + "/09 Bought.m4a", ["-c:a", "aac"])
        try MP4Edit.protect(folder + "/09 Bought.m4a", entry: "drms", scheme: "itun")
        try FileManager.default.moveItem(atPath: folder + "/09 Bought.m4a", toPath: folder + "/09 Bought.m4p")
        let content = StickChecker().check(root)
        #expect(content.problems.map(\.description) == [
            "Class/09 Bought.m4p: copy-protected (an iTunes Store purchase with FairPlay DRM): only the app it was bought in can play it; use a copy without DRM",
        ])
        let parts = try #require(content.routines.first?.parts)
        #expect(parts.map(\.title) == ["Phone", "Book", "Warm-up", "Combo", "Stage", "Stage", "Old", "Radio"])
        for part in parts {
            // 0.5 s each; WMA and raw AAC keep their encoder's priming (up to 2112 frames).
            #expect(abs(part.length - 24000) <= 2112 + 960, "\(part.title): \(part.length)")
        }
    }
}
