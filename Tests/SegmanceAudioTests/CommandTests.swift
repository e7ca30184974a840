import SegmanceCore
import Testing
@testable import SegmanceAudio

@Suite("Commands from the core, PCM slices", .tags(.unit))
struct CommandTests {
    /// A stand-in decoded file of 1000 frames (never read, never freed).
    static let file = PCMSlice(base: UnsafePointer(UnsafeMutablePointer<Int16>.allocate(capacity: 2000)),
                               frames: 1000)
    static var pcm: UnsafePointer<Int16> { file.base! }
    static let song = AudioReference("song")

    static func resolve(_ part: PartAudio) -> PCMSlice? {
        part.audio == song ? file.slice(from: part.start, length: part.length) : nil
    }

    @Test("each AudioCommand converts to its render command",
          arguments: [
              (AudioCommand.play(from: 5, countdown: 3), RenderCommand?.some(.play(from: 5, countdown: 3))),
              (.play(from: 5, countdown: -2), .play(from: 5, countdown: 0)),
              (.pause, .pause),
              (.stop, .stop),
              (.seek(to: 77), .seek(77)),
              (.setLoop(LoopRegion(range: 10..<20, countdownBeforeRepeat: 4)),
               .setLoop(start: 10, end: 20, countdownBeforeRepeat: 4)),
              (.setLoop(nil), .clearLoop),
              (.setNext(nil), .setNext(nil)),
              (.setVolume(250), .setVolume(100)),
              (.setVolume(-1), .setVolume(0)),
              (.load(PartAudio(audio: AudioReference("missing"), start: 0, length: 5)), nil),
              (.setNext(PartAudio(audio: AudioReference("missing"), start: 0, length: 5)), nil),
          ])
    func converts(command: AudioCommand, expected: RenderCommand?) {
        #expect(RenderCommand(command, resolve: Self.resolve) == expected)
    }

    @Test("a part resolves to its frames of the decoded file")
    func resolvesSlices() {
        let part = PartAudio(audio: Self.song, start: 100, length: 300)
        let load = RenderCommand(.load(part), resolve: Self.resolve)
        #expect(load == .load(PCMSlice(base: Self.pcm + 200, frames: 300)))
        let next = RenderCommand(.setNext(part), resolve: Self.resolve)
        #expect(next == .setNext(PCMSlice(base: Self.pcm + 200, frames: 300)))
    }

    @Test("slices clamp to the frames that exist",
          arguments: [(Int64(-5), Int64(10), Int64(0), Int64(10)), (990, 50, 990, 10),
                      (2000, 5, 1000, 0), (10, -3, 10, 0)])
    func sliceClamps(start: Int64, length: Int64, offset: Int64, frames: Int64) {
        let whole = Self.file
        let s = whole.slice(from: start, length: length)
        #expect(s == PCMSlice(base: Self.pcm + Int(offset) * 2, frames: frames))
        #expect(PCMSlice.empty.slice(from: 0, length: 5) == .empty)
    }
}
