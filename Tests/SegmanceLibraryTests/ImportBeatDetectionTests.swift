import BeatTracking
import Foundation
import SegmanceCore
@testable import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
import SndFile
@testable import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// An import's beat detection beside the decoding (`BeatTappedSink`): the same as detecting
/// afterwards; a part cut from a file is detected afterwards.
@Suite(.tags(.integration)) struct ImportBeatDetectionTests {
    static let rate = 48_000

    /// Through the store decoder: a part that is the whole file gets the detection made
    /// while it decoded, the very one detecting the stored sound afterwards finds (so that
    /// importing the same stick again finds the routine unchanged); a part cut from the
    /// middle of the file gets none from it.
    @Test(arguments: [(SoundFileWriteFormat.wavPCM16, 48_000, "wav"), (.flac16, 44_100, "flac"), (.oggVorbis, 48_000, "ogg")])
    func theStoreDecoderDetectsAWholeFileAsItDecodes(format: SoundFileWriteFormat, rate: Int, ext: String) throws {
        let fixture = try LibraryFixture()
        let library = try fixture.open()
        let stick = try fixture.stick()
        let path = stick + "/clicks.\(ext)"
        try Self.writeClicks(bpm: 120, seconds: 40, to: path, format: format, rate: rate)
        var info = stat()
        stat(stick, &info)
        let presence = StickPresence(root: stick, device: info.st_dev, blockDevices: "/sys/dev/block", grace: 0)
        let progress = ProgressReporter(routine: 1, count: 1, title: "Clicks", total: 0) { _ in }
        let detector = BeatDetector(sampleRate: Self.rate)
        let decoder = StoreDecoder(library: library, root: stick, stick: presence, progress: progress,
                                   detector: detector, checkpoint: {})
        let decoded = try decoder.decode(StickAudioFile(name: "clicks.\(ext)", real: path, shown: "clicks.\(ext)")).get()
        let whole = Part(title: "Clicks", audio: decoded.reference, length: decoded.frames)
        let early = try #require(decoder.detection(for: whole))
        let pcm = try library.store.map(decoded.reference.id, frames: decoded.frames)
        #expect(try detector.detect(stereo: pcm.base, frames: Int(decoded.frames)) == early)
        let grid = try #require(early.grid)
        #expect(abs(grid.bpm(sampleRate: Int64(Self.rate)) - 120) <= 0.5)

        let cut = Part(title: "Cut", audio: decoded.reference, range: 240_000..<1_680_000, length: 1_440_000)
        #expect(decoder.detection(for: cut) == nil)
    }

    /// The beat found beside the decoding is the one found from the store: importing the
    /// same stick again finds every routine unchanged (nothing decoded, detected afterwards).
    @Test func aStickImportedAgainIsUnchanged() throws {
        let fixture = try LibraryFixture()
        let stick = try fixture.stick()
        try TestFiles.mkdir(stick + "/Clicks")
        try Self.writeClicks(bpm: 128, seconds: 50, to: stick + "/Clicks/01 Fast.ogg", format: .oggVorbis, rate: 44_100)
        try Self.writeClicks(bpm: 90, seconds: 35, to: stick + "/Clicks/02 Slow.wav", format: .wavPCM16, rate: 48_000)
        let first = try fixture.importStick(stick)
        #expect(first.summary == ImportSummary(added: 1), "\(first.events.problems)")
        let library = try fixture.open()
        let parts = try #require(try library.routine(titled: "Clicks")).routine.parts
        #expect(parts.map { $0.grid.map { ($0.bpm(sampleRate: Int64(Self.rate)) * 10).rounded() / 10 } } == [128, 90])
        let again = try fixture.importStick(stick, into: library)
        #expect(again.summary == ImportSummary(unchanged: 1), "\(again.events.problems)")
    }

    /// A click track written in blocks (libvorbis takes a whole write on its stack).
    static func writeClicks(bpm: Double, seconds: Double, to path: String, format: SoundFileWriteFormat, rate: Int) throws {
        let music = BeatSignals.clickTrack(bpm: bpm, seconds: seconds, rate: rate)
        let file = try SoundFile(writingTo: path, format: format, sampleRate: rate, channels: 2)
        for start in stride(from: 0, to: music.count, by: 8192) {
            try music[start..<min(music.count, start + 8192)].withUnsafeBufferPointer { try file.write($0) }
        }
        try file.close()
    }
}
