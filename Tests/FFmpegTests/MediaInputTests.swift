import FFmpeg
import Foundation
import SegmanceTestSupport
import Testing

@Suite(.tags(.integration)) struct MediaInputTests {
    let temp = TempDirs()

    /// A 1 s stereo WAV tone at 44.1 kHz.
    private func source(_ dir: String) throws -> String {
        let path = dir + "/source.wav"
        try TestFiles.tone(path, seconds: 1, rate: 44100)
        return path
    }

    @Test func listsTheStreamsOfAVideo() throws {
        let dir = try temp.make()
        let path = dir + "/clip.mp4"
        try FFmpegTool.video(with: try source(dir), to: path)
        let input = try MediaInput(readingFrom: path)
        #expect(input.formatName == "mov,mp4,m4a,3gp,3g2,mj2")
        let streams = input.streams
        try #require(streams.count == 2)
        #expect(streams[0].kind == .video)
        #expect(streams[0].codecName == "h264")
        #expect(streams[1].kind == .audio)
        #expect(streams[1].codecName == "aac")
        #expect(streams[1].codecTagText == "mp4a")
        #expect(streams[1].sampleRate == 44100)
        #expect(streams[1].channels == 2)
        #expect(abs((streams[1].duration ?? 0) - 1) < 0.05)
    }

    @Test func decodesEveryFrameOfAStream() throws {
        let dir = try temp.make()
        let path = dir + "/song.m4a"
        try FFmpegTool.encode(try source(dir), to: path, ["-c:a", "alac"])
        let input = try MediaInput(readingFrom: path)
        input.discardAll(except: 0)
        let decoder = try StreamDecoder(input, stream: 0)
        #expect(decoder.decoderName == "alac")
        let packet = try Packet(), frame = try Frame()
        var samples: [Float] = []
        var converter: SampleConverter?
        func drain() throws {
            while try decoder.receive(frame) == .frame {
                if converter == nil { converter = try SampleConverter(from: frame, path: path) }
                _ = try converter!.convert(frame, appendingTo: &samples)
            }
        }
        while try input.read(into: packet) {
            #expect(try decoder.send(packet))
            try drain()
        }
        _ = try decoder.send(nil)
        try drain()
        #expect(try decoder.receive(frame) == .end)
        #expect(converter?.channels == 2)
        #expect(converter?.sampleRate == 44100)
        // ALAC is lossless: the 16-bit tone comes back exactly.
        #expect(samples.count == 44100 * 2)
        let expected = TestFiles.sine(frequency: 440, rate: 44100, frames: 44100)
        let worst = zip(samples, expected).map { abs($0 - (($1 * 32768).rounded(.towardZero) / 32768)) }.max() ?? 1
        #expect(worst < 1.0 / 32768 + 1e-6)
    }

    @Test func aMissingFileNamesOpen() throws {
        let dir = try temp.make()
        #expect(throws: FFmpegError(function: "open", path: dir + "/none.m4a", message: "No such file or directory",
                                    code: -ENOENT)) {
            _ = try MediaInput(readingFrom: dir + "/none.m4a")
        }
    }

    @Test func garbageNamesTheFunctionAndFFmpegsWords() throws {
        let dir = try temp.make()
        let path = dir + "/noise.m4a"
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7919 >> 3) }).write(to: URL(fileURLWithPath: path))
        do {
            _ = try MediaInput(readingFrom: path)
            Issue.record("opened noise")
        } catch {
            #expect(error.function == "avformat_open_input")
            #expect(error.path == path)
            #expect(error.isInvalidData)
            #expect(error.message == "Invalid data found when processing input")
        }
    }

    /// Only the listed demuxers may read a file: a WAV is refused when they do not include it,
    /// whatever its name says.
    @Test func onlyTheAllowedDemuxersRead() throws {
        let dir = try temp.make()
        let path = dir + "/song.mp4"
        try TestFiles.tone(path, seconds: 0.2)
        #expect(throws: FFmpegError.self) { _ = try MediaInput(readingFrom: path) }
        let wav = try MediaInput(readingFrom: path, limits: MediaInput.Limits(formats: ["wav"]))
        #expect(wav.formatName == "wav")
    }

    /// A demuxer that fetches other files (HLS: a playlist naming its segment) is not on the
    /// default list; and allowed, it opens nothing beside the file it was given (FFmpeg sees
    /// a descriptor, no path; nested opens are refused).
    @Test func aPlaylistOpensNothingElse() throws {
        let dir = try temp.make()
        let source = try source(dir)
        try FFmpegTool.encode(source, to: dir + "/part.ts", ["-c:a", "aac", "-f", "mpegts"])
        let playlist = dir + "/list.m4a"
        try "#EXTM3U\n#EXT-X-TARGETDURATION:1\n#EXTINF:1.0,\n\(dir)/part.ts\n#EXT-X-ENDLIST\n"
            .write(toFile: playlist, atomically: true, encoding: .utf8)
        // The HLS demuxer recognises it, and is not on the list: refused (FFmpeg 5.1, bookworm:
        // EINVAL; 7.1, trixie: invalid data).
        do throws(FFmpegError) {
            _ = try MediaInput(readingFrom: playlist)
            Issue.record("the playlist opened")
        } catch {
            let refusals = [FFmpegError(function: "avformat_open_input", path: playlist,
                                        message: "Invalid argument", code: -EINVAL),
                            FFmpegError(function: "avformat_open_input", path: playlist,
                                        message: "Invalid data found when processing input", code: -0x4144_4E49)]
            #expect(refusals.contains(error), "\(error)")
        }
        let watch = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        try #require(watch >= 0)
        defer { close(watch) }
        try #require(inotify_add_watch(watch, dir, UInt32(IN_OPEN)) >= 0)
        if let input = try? MediaInput(readingFrom: playlist, limits: MediaInput.Limits(formats: ["hls"])),
           let packet = try? Packet() {
            while (try? input.read(into: packet)) == true {}
        }
        var opened: [String] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        let got = read(watch, &buffer, buffer.count)
        var offset = 0
        while got > 0 && offset + 16 <= got {
            let length = Int(buffer[offset + 12..<offset + 16].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let name = String(decoding: buffer[(offset + 16)..<(offset + 16 + length)].prefix { $0 != 0 }, as: UTF8.self)
            opened.append(name)
            offset += 16 + length
        }
        #expect(opened.contains("list.m4a"), "the watch sees the playlist itself opened")
        #expect(!opened.contains("part.ts"))
    }
}
