import Foundation
import SndFile
import Soxr
import SegmanceTestSupport
import Testing

@Suite(.tags(.integration)) struct SndFileTests {
    let temp = TempDirs()
    @Test func wavInt16RoundTripIsExact() throws {
        let dir = try temp.make()
        let samples = TestFiles.noise16(frames: 5000)
        try TestFiles.write(samples, to: dir + "/n.wav")
        let file = try SoundFile(readingFrom: dir + "/n.wav")
        #expect(file.info.frames == 5000)
        #expect(file.info.channels == 2)
        #expect(file.info.sampleRate == 48000)
        #expect(file.info.isPCM16)
        #expect(try file.readAllInt16() == samples)
    }

    @Test(arguments: [SoundFileWriteFormat.flac16, .oggVorbis, .aiffPCM16, .wavFloat])
    func writesAndReadsBack(format: SoundFileWriteFormat) throws {
        let dir = try temp.make()
        let path = dir + "/t.\(format)"
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: 44100, frames: 22050), to: path,
                            format: format, rate: 44100)
        let file = try SoundFile(readingFrom: path)
        #expect(file.info.sampleRate == 44100)
        let samples = try file.readAllFloat()
        #expect(samples.count == 22050 * 2)
        let peak = samples.map { abs($0) }.max() ?? 0
        #expect(abs(peak - 0.5) < 0.05)
    }

    @Test func openErrorNamesFunctionPathAndReason() throws {
        let dir = try temp.make()
        let path = dir + "/missing.wav"
        do {
            _ = try SoundFile(readingFrom: path)
            Issue.record("opened a missing file")
        } catch {
            #expect(error.function == "open")
            #expect(error.path == path)
            #expect(error.message == "No such file or directory")
            #expect(error.description.contains(path))
        }
    }

    @Test func aFileLibsndfileRefusesLeavesNoDescriptorOpen() throws {
        let dir = try temp.make()
        let path = dir + "/notes.wav"
        try TestFiles.writeText("not audio at all, just some words", to: path)
        func openDescriptors() throws -> Int { try FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count }
        let before = try openDescriptors()
        for _ in 0..<50 {
            do {
                _ = try SoundFile(readingFrom: path)
                Issue.record("opened a text file")
            } catch {
                #expect(error.function == "sf_open_fd")
                #expect(error.path == path)
            }
        }
        // Other tests run in parallel and open files too: a leak would show as 50 more.
        #expect(try openDescriptors() < before + 25)
    }

    @Test func listsMajorFormats() {
        let names = SoundFile.majorFormats.map(\.fileExtension)
        #expect(names.contains("wav"))
        #expect(names.contains("flac"))
        #expect(names.contains("oga") || names.contains("ogg"))
    }

    @Test func resamplerKeepsLengthAndFlushes() throws {
        let input = TestFiles.sine(frequency: 1000, rate: 44100, frames: 44100, channels: 3)
        let resampler = try Resampler(inputRate: 44100, outputRate: 48000, channels: 3)
        var out: [Float] = []
        var start = 0
        while start < input.count {
            let end = min(input.count, start + 3 * 1000)
            out += try resampler.process(Array(input[start..<end]))
            start = end
        }
        out += try resampler.flush()
        #expect(abs(out.count / 3 - 48000) <= 1)
        #expect(out.count % 3 == 0)
    }

    @Test func resamplerRejectsBadRates() {
        #expect(throws: ResamplerError.self) { try Resampler(inputRate: 0, outputRate: 48000, channels: 2) }
    }
}
