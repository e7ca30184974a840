import AudioDecoding
import Foundation
import SegmanceStick
import SegmanceTestSupport
import SndFile
import Testing

@Suite(.tags(.integration)) struct AudioDecoderTests {
    let temp = TempDirs()
    let decoder = SniffingDecoder()

    @Test func sixteenBitStereoAtOutputRateIsExact() throws {
        let dir = try temp.make()
        let samples = TestFiles.noise16(frames: 40_000)
        try TestFiles.write(samples, to: dir + "/a.wav")
        let buffer = try decoder.decodeAll(dir + "/a.wav")
        #expect(buffer.frames == 40_000)
        #expect(buffer.samples == samples)
    }

    @Test func monoSixteenBitGoesToBothChannelsExactly() throws {
        let dir = try temp.make()
        let mono = Array(TestFiles.noise16(frames: 5000).prefix(5000))
        try TestFiles.write(mono, to: dir + "/m.wav", channels: 1)
        let buffer = try decoder.decodeAll(dir + "/m.wav")
        #expect(buffer.frames == 5000)
        #expect((0..<5000).allSatisfy { buffer[Int64($0), 0] == mono[$0] && buffer[Int64($0), 1] == mono[$0] })
    }

    @Test func monoFloatGoesToBothChannels() throws {
        let dir = try temp.make()
        let mono = TestFiles.sine(frequency: 300, rate: 48000, frames: 4800, channels: 1)
        try TestFiles.write(mono, to: dir + "/m.wav", format: .wavFloat, channels: 1)
        let buffer = try decoder.decodeAll(dir + "/m.wav")
        #expect(buffer.frames == 4800)
        for f in stride(from: 0, to: 4800, by: 97) {
            let expected = Int16((mono[f] * 32768).rounded())
            #expect(buffer[Int64(f), 0] == expected)
            #expect(buffer[Int64(f), 1] == expected)
        }
    }

    @Test func floatSamplesClipAtFullScale() throws {
        let dir = try temp.make()
        try TestFiles.write([1.5, -1.5, 1.0, -1.0] as [Float], to: dir + "/c.wav", format: .wavFloat)
        let buffer = try decoder.decodeAll(dir + "/c.wav")
        #expect(buffer.samples == [32767, -32768, 32767, -32768])
    }

    @Test func surroundIsMixedToStereo() throws {
        let dir = try temp.make()
        // 4 channels: even channels carry +0.5, odd ones -0.25.
        let frames = 1000
        let quad = (0..<(frames * 4)).map { $0 % 2 == 0 ? Float(0.5) : Float(-0.25) }
        try TestFiles.write(quad, to: dir + "/q.wav", format: .wavFloat, channels: 4)
        let buffer = try decoder.decodeAll(dir + "/q.wav")
        #expect(buffer.frames == Int64(frames))
        #expect(buffer[10, 0] == 16384)
        #expect(buffer[10, 1] == -8192)
    }

    @Test func resamples44100To48000KeepingLengthAndPitch() throws {
        let dir = try temp.make()
        let inFrames = 44100 * 2
        try TestFiles.write(TestFiles.sine(frequency: 1000, rate: 44100, frames: inFrames), to: dir + "/r.wav",
                            format: .wavFloat, rate: 44100)
        let buffer = try decoder.decodeAll(dir + "/r.wav")
        let expected = Int64(inFrames) * 48000 / 44100
        #expect(abs(buffer.frames - expected) <= 1)
        // Count rising zero crossings of the left channel over the middle second.
        var crossings = 0
        for f in Int64(24000)..<Int64(72000) where buffer[f - 1, 0] < 0 && buffer[f, 0] >= 0 {
            crossings += 1
        }
        #expect(abs(crossings - 1000) <= 1)
    }

    @Test func fivePointOneIsMixedWithCentreInBothSides() throws {
        let dir = try temp.make()
        // Only the centre channel (index 2) sounds; LFE (3) is dropped.
        let frames = 500
        let surround = (0..<(frames * 6)).map { i -> Float in
            i % 6 == 2 ? 0.5 : i % 6 == 3 ? 0.9 : 0
        }
        try TestFiles.write(surround, to: dir + "/s.wav", format: .wavFloat, channels: 6)
        let buffer = try decoder.decodeAll(dir + "/s.wav")
        let weight: Double = 0.70710678 / (1 + 2 * 0.70710678)
        let expected = Int((0.5 * weight * 32768).rounded())
        #expect(abs(Int(buffer[100, 0]) - expected) <= 1)
        #expect(buffer[100, 0] == buffer[100, 1])
    }

    @Test(arguments: [SoundFileWriteFormat.flac16, .oggVorbis, .aiffPCM16, .mp3, .opus])
    func roundTrips(format: SoundFileWriteFormat) throws {
        let dir = try temp.make()
        let source = TestFiles.sine(frequency: 440, rate: 48000, frames: 48000)
        try TestFiles.write(source, to: dir + "/t.audio", format: format)
        let buffer = try decoder.decodeAll(dir + "/t.audio")
        let lossy = [.oggVorbis, .mp3, .opus].contains(format)
        if lossy {
            // Encoder delay and padding may shift lossy codecs; the tone must survive.
            #expect(abs(buffer.frames - 48000) <= 2000)
            // RMS of a 0.5 sine is 0.354 of full scale (11585); allow 10 %.
            let middle = buffer.samples[10_000..<80_000]
            let rms = (middle.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(middle.count)).squareRoot()
            #expect(abs(rms - 11585) < 1160)
        } else {
            #expect(buffer.frames == 48000)
            for f in stride(from: 1000, to: 47000, by: 331) {
                let expected = Int(source[2 * f] * 32768)
                #expect(abs(Int(buffer[Int64(f), 0]) - expected) <= 1)
            }
        }
    }

    @Test func flacSixteenBitDecodesExactly() throws {
        let dir = try temp.make()
        let samples = TestFiles.noise16(frames: 10_000).map { $0 / 4 }
        try TestFiles.write(samples, to: dir + "/x.flac", format: .flac16)
        #expect(try decoder.decodeAll(dir + "/x.flac").samples == samples)
    }

    // MARK: Errors

    private func reason(_ path: String) -> String {
        do {
            _ = try decoder.decodeAll(path)
            return "decoded"
        } catch {
            return error.reasonText
        }
    }

    @Test func emptyFile() throws {
        let dir = try temp.make()
        try TestFiles.writeEmpty(dir + "/e.wav")
        #expect(reason(dir + "/e.wav") == "empty file (0 bytes)")
    }

    @Test func truncatedWav() throws {
        let dir = try temp.make()
        try TestFiles.tone(dir + "/t.wav")
        try TestFiles.truncate(dir + "/t.wav", to: try TestFiles.size(dir + "/t.wav") / 2)
        #expect(reason(dir + "/t.wav").hasPrefix("truncated file: the header announces 192000 bytes"))
    }

    @Test(arguments: [SoundFileWriteFormat.flac16, .oggVorbis, .mp3])
    func truncatedCompressed(format: SoundFileWriteFormat) throws {
        let dir = try temp.make()
        let path = dir + "/t.audio"
        try TestFiles.write(TestFiles.noise16(frames: 96000).map { $0 / 8 }, to: path, format: format)
        try TestFiles.truncate(path, to: try TestFiles.size(path) / 2)
        #expect(reason(path).hasPrefix("truncated file: "))
    }

    /// An Ogg file whose last page does not end the stream was cut short (libsndfile 1.2.2
    /// takes the last whole page as its end and says nothing): here the flag is cleared on an
    /// otherwise whole file, so only the last page's header says it.
    @Test func anOggStreamWithoutItsEndOfStreamPageIsTruncated() throws {
        let dir = try temp.make()
        let path = dir + "/cut.ogg"
        try TestFiles.write(TestFiles.noise16(frames: 48_000).map { $0 / 8 }, to: path, format: .oggVorbis)
        #expect(reason(path) == "decoded")
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let last = try #require((0...(bytes.count - 27)).last { bytes[$0..<($0 + 4)].elementsEqual("OggS".utf8) })
        try #require(bytes[last + 5] & 0x04 != 0, "the writer ends the stream")
        bytes[last + 5] &= ~0x04
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        // libsndfile 1.2.0 (bookworm) says it first ("before its end marker"), 1.2.2 does not.
        #expect(reason(path).hasPrefix("truncated file: the stream ends before its "), "\(reason(path))")
    }

    @Test func headerOnlyWavIsDamaged() throws {
        let dir = try temp.make()
        try TestFiles.tone(dir + "/h.wav")
        try TestFiles.truncate(dir + "/h.wav", to: 30)
        #expect(reason(dir + "/h.wav").hasPrefix("damaged audio file: WAV data is incomplete or damaged"))
    }

    @Test func textFileNamedMp3() throws {
        let dir = try temp.make()
        try TestFiles.writeText("Salsa playlist\n1. Intro\n2. Shines\n", to: dir + "/notes.mp3")
        #expect(reason(dir + "/notes.mp3") == "not an audio file (it is a text file)")
    }

    @Test func randomBytesAreNotAudio() throws {
        let dir = try temp.make()
        let bytes = TestFiles.noise16(frames: 600).withUnsafeBytes { Data($0) }
        try ([0x00, 0x01, 0x02] + bytes).write(to: URL(fileURLWithPath: dir + "/x.wav"))
        #expect(reason(dir + "/x.wav").hasPrefix("not an audio file (libsndfile: "))
    }

    @Test func midiIsUnsupported() throws {
        let dir = try temp.make()
        let header: [UInt8] = Array("MThd".utf8) + [0, 0, 0, 6, 0, 1, 0, 2, 0, 96] + Array("MTrk".utf8) + [0, 0, 0, 0]
        try Data(header).write(to: URL(fileURLWithPath: dir + "/song.mp3"))
        #expect(reason(dir + "/song.mp3")
            == "unsupported format (MIDI); supported: MP3, AAC/ALAC (.m4a), WAV, FLAC, Ogg Vorbis, Opus, AIFF, WMA, the sound of MP4/MOV/MKV/WebM videos")
    }

    /// A header's rate or channel count outside what is converted is refused before a frame is
    /// decoded: 2 000 frames said to be at 1 Hz once took the fuzzer past its 10 s (96 million
    /// frames at 48 kHz). The edges themselves decode.
    @Test(arguments: [
        (rate: 1, channels: 1, refused: true), (rate: 3_999, channels: 2, refused: true),
        (rate: 4_000, channels: 1, refused: false), (rate: 768_000, channels: 2, refused: false),
        (rate: 768_001, channels: 2, refused: true), (rate: 48_000, channels: 64, refused: false),
        (rate: 48_000, channels: 65, refused: true),
    ])
    func aRateOrChannelCountNoMusicHasIsDamaged(rate: Int, channels: Int, refused: Bool) throws {
        let dir = try temp.make()
        let frames = 2_000
        try TestFiles.write([Int16](repeating: 1_000, count: frames * channels), to: dir + "/odd.wav",
                            rate: rate, channels: channels)
        let got = reason(dir + "/odd.wav")
        if refused {
            #expect(got == "damaged audio file: \(channels) channel\(channels == 1 ? "" : "s") at \(rate) Hz "
                + "(audio here is 1 to 64 channels at 4 000 to 768 000 Hz)")
        } else {
            #expect(got == "decoded")
        }
    }

    @Test func missingFile() throws {
        let dir = try temp.make()
        #expect(reason(dir + "/nope.wav") == "cannot read the file: file not found")
    }
}

/// Float to Int16 as stored: the same as rounding to nearest (even) and clipping, for
/// ties, the clipping edges, and a sweep over the range.
@Suite(.tags(.integration)) struct PCMConversionTests {
    static func reference(_ value: Float) -> Int16 {
        let scaled = (value * 32768).rounded(.toNearestOrEven)
        return scaled >= 32767 ? .max : scaled <= -32768 ? .min : Int16(scaled)
    }

    @Test func itRoundsToNearestEvenAndClips() {
        let edges: [Float] = [0, -0.0, 0.5 / 32768, 1.5 / 32768, 2.5 / 32768, -0.5 / 32768, -2.5 / 32768,
                              32766.5 / 32768, 32767.5 / 32768, 1, -1, 1.5, -1.5, -32768.5 / 32768,
                              .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .infinity, -.infinity]
        var values = edges
        var state: UInt32 = 12_345
        for _ in 0..<200_000 {
            state = state &* 1_664_525 &+ 1_013_904_223
            values.append(Float(Int32(bitPattern: state)) / Float(Int32.max) * 1.2)
        }
        for i in -70_000...70_000 { values.append(Float(i) / 65_536) }
        var out: [Int16] = []
        PCMConversion.int16(values, into: &out)
        let mismatches = zip(values, out).filter { Self.reference($0) != $1 }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
        #expect(PCMConversion.int16(.nan) == .min)
    }
}
