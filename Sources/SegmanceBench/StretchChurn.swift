import SegmanceAudio
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// `stretch-churn`: the deep-buffer mode's pattern at 75 % without a device: every 20–45 ms
/// of output a command (seek +1 s, seek -1 s, pause, play) applied after a rewind of the
/// renderer to 256 frames past a play head 8192 frames behind, then the buffer rendered
/// again. Prints the render CPU per command (mean, worst): what the render thread needs.
enum StretchChurn {
    static func run() {
        let rate = 48_000
        let frames = 120 * rate
        let pcm = UnsafeMutablePointer<Int16>.allocate(capacity: frames * 2)
        defer { pcm.deallocate() }
        for f in 0..<frames {
            let s = Int16((0.3 * sin(2 * Double.pi * 440 * Double(f) / Double(rate)) * 32767).rounded())
            pcm[2 * f] = s
            pcm[2 * f + 1] = s
        }
        var r = Renderer(sampleRate: rate, config: .standard(sampleRate: rate))
        let chunk = 128, buffer = 8192
        let out = UnsafeMutablePointer<Float>.allocate(capacity: buffer * 4)
        defer { out.deallocate() }
        var snapshots: [RenderSnapshot] = []
        var epoch: UInt32 = 0
        func apply(_ c: RenderCommand) { epoch += 1; r.apply(StampedCommand(c, epoch: epoch)) }
        func renderChunks(_ n: Int) {
            for _ in 0..<n {
                snapshots.append(r.snapshot())
                if snapshots.count > buffer / chunk + 2 { snapshots.removeFirst() }
                r.render(into: out, frames: chunk)
                r.removeAllReports()
            }
        }
        apply(.load(PCMSlice(base: pcm, frames: Int64(frames))))
        apply(.setSpeed(Int32(option("speed", "75")) ?? 75))
        apply(.play(from: 0, countdown: 0))
        renderChunks(buffer / chunk)
        let cycle: [RenderCommand] = [.seek(0), .seek(0), .pause, .play(from: 0, countdown: 0)]
        var costs: [Double] = []
        var position: Int64 = 10 * Int64(rate)
        for i in 0..<Int(option("events", "300"))! {
            renderChunks(Int.random(in: 8...16))   // 20–45 ms pass
            // Rewind to 256 frames past a play head a buffer behind.
            let back = (buffer - 256) / chunk
            let snapshot = snapshots[snapshots.count - back]
            snapshots.removeLast(back - 1)
            let c0 = StretchBench.threadCPU()
            r.restore(snapshot)
            snapshots.removeLast()
            var command = cycle[i % cycle.count]
            if case .seek = command { position += i % 4 == 0 ? 48_000 : -47_000; command = .seek(position) }
            if case .play = command { command = .play(from: r.position, countdown: 0) }
            apply(command)
            renderChunks(back)
            costs.append(StretchBench.threadCPU() - c0)
        }
        let mean = costs.reduce(0, +) / Double(costs.count) * 1000
        let worst = (costs.max() ?? 0) * 1000
        print(
            "stretch-churn: \(costs.count) commands, each a rewind of \(buffer - 256) frames and the buffer rendered "
                + "again: "
            + "render CPU per command mean \(String(format2: mean)) ms, worst \(String(format2: worst)) ms")
    }
}
