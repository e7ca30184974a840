import BoxSupport
import SegmanceAudio
import SegmanceCore
@testable import SegmanceEngine
import Testing

/// The daemon's stretchers are made and then run through the render code's warm-up
/// (`RenderWarmUp`) before the render thread gets them; the twin's are only made. A reset
/// Rubber Band R3 stretcher's output still depends on what it ran before: the box's
/// rehearsal, at 80 % after a count-in, differed from the twin in 1,180 frames by one LSB
/// until `RenderWarmUp.makeStretchers` put them back as made after it (`StretchStorage.warmUp`).
@Suite(.tags(.unit)) struct WarmedStretcherTests {
    /// The box's part 2 (its noise), the speed set to 80 % while stopped, a counted start from
    /// `paused`: six seconds from the daemon's stretchers equal the twin's, sample for sample
    /// (at 200,000 1,199 samples differed before).
    @Test(arguments: [200_000, 278_512, 300_123] as [Int64])
    func stretchersWarmedWithTheRenderCodePlayAsFreshOnes(paused: Int64) throws {
        var configuration = EngineConfiguration(device: "null", periodFrames: 512, periods: 4)
        configuration.render.stretchVoices = 3
        let noise = BoxStick.noise(frames: 20 * 48_000, seed: 2)
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: noise.count)
        defer { pcm.deallocate() }
        for i in 0..<noise.count { pcm[i] = noise[i] }
        let slice = PCMSlice(base: UnsafePointer(pcm), frames: 20 * 48_000)
        func play(_ r: inout Renderer) -> [Int16] {
            r.apply(StampedCommand(.load(slice), epoch: 1))
            for s: Int32 in [95, 90, 85, 80] { r.apply(StampedCommand(.setSpeed(s), epoch: 2)) }
            r.apply(StampedCommand(.play(from: paused, countdown: 3), epoch: 3))
            var out = [Float](repeating: 0, count: 48_000 * 6 * 2)
            out.withUnsafeMutableBufferPointer { r.render(into: $0.baseAddress!, frames: 48_000 * 6) }
            return out.map { Int16(max(-32768, min(32767, ($0 * 32768).rounded()))) }
        }
        var twin = Renderer(sampleRate: 48_000, config: configuration.render)
        // As the daemon makes them (`StretcherMaker`, `prepareStretchers`).
        let made = try #require(RenderWarmUp.makeStretchers(configuration, sampleRate: 48_000))
        var daemon = Renderer(sampleRate: 48_000, config: configuration.render, deferringStretchers: true)
        daemon.attach(made.pool)
        let a = play(&twin), b = play(&daemon)
        let differing = zip(a, b).filter { $0 != $1 }.count
        #expect(differing == 0, "\(differing) samples differ")
    }
}
