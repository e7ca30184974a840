import SegmanceCore
@testable import SegmanceAudio

/// Synthetic PCM in which every frame is distinguishable: left = seed + 1 + i % 20000,
/// right = -left. Freed explicitly (`defer { pcm.free() }`).
struct TestPCM {
    let storage: UnsafeMutablePointer<Int16>
    let frames: Int64

    init(frames: Int, seed: Int = 0) {
        storage = .allocate(capacity: frames * 2)
        for i in 0..<frames {
            let v = Int16(seed + 1 + i % 20000)
            storage[2 * i] = v
            storage[2 * i + 1] = -v
        }
        self.frames = Int64(frames)
    }

    var slice: PCMSlice { PCMSlice(base: storage, frames: frames) }

    /// Source sample as the renderer scales it: exact `Float(s) / 32768`, 0 outside.
    func a(_ frame: Int64, _ channel: Int = 0) -> Float {
        guard frame >= 0, frame < frames else { return 0 }
        return Float(storage[Int(frame) * 2 + channel]) / 32768
    }

    func free() { storage.deallocate() }
}

/// A command applied at an exact output frame of a timeline.
struct Cue {
    var frame: Int64
    var command: RenderCommand
    init(_ frame: Int64, _ command: RenderCommand) {
        self.frame = frame
        self.command = command
    }
}

/// Output and reports of a rendered timeline.
struct Take: Equatable {
    var out: [Float]
    var reports: [RenderReport]

    func left(_ frame: Int64) -> Float { out[Int(frame) * 2] }
    func right(_ frame: Int64) -> Float { out[Int(frame) * 2 + 1] }

    func kinds() -> [AudioReport.Kind] { reports.map(\.report.kind) }

    /// Frames of the reports matching `kind`.
    func frames(of match: (AudioReport.Kind) -> Bool) -> [Int64] {
        reports.filter { match($0.report.kind) }.map(\.frame)
    }

    /// Reports other than periodic position reports.
    var events: [RenderReport] {
        reports.filter { if case .position = $0.report.kind { return false } else { return true } }
    }
}

/// A renderer at 48 kHz with the given lengths and no periodic position reports.
func makeRenderer(rate: Int = 48_000, ramp: Int = 240, crossfade: Int = 240,
                  positionInterval: Int = 0, reportCapacity: Int = 64) -> Renderer {
    Renderer(sampleRate: rate,
             config: RenderConfig(rampFrames: ramp, crossfadeFrames: crossfade,
                                  volumeRampFrames: ramp,
                                  positionReportInterval: positionInterval,
                                  reportCapacity: reportCapacity))
}

/// Renders `frames` frames in calls of `period` frames, applying each cue (epoch = its
/// index + 1) at its frame, which also splits the call there.
func run(_ r: inout Renderer, _ cues: [Cue] = [], frames: Int, period: Int = 128) -> Take {
    var take = Take(out: [Float](repeating: .nan, count: frames * 2), reports: [])
    let start = r.clock
    var done: Int64 = 0
    var nextCue = 0
    let total = Int64(frames)
    while done < total {
        while nextCue < cues.count && cues[nextCue].frame <= done {
            r.apply(StampedCommand(cues[nextCue].command, epoch: UInt32(nextCue + 1)))
            nextCue += 1
        }
        var n = min(Int64(period), total - done)
        if nextCue < cues.count { n = min(n, cues[nextCue].frame - done) }
        take.out.withUnsafeMutableBufferPointer { buf in
            r.render(into: buf.baseAddress! + Int(done) * 2, frames: Int(n))
        }
        take.reports += r.takeReports()
        done += n
    }
    // Report frames relative to this take's first frame.
    for i in take.reports.indices { take.reports[i].frame -= start }
    return take
}

extension Take {
    /// The first frame in `frames` whose output differs from `expected(frame)` =
    /// (left, right), or nil when all match exactly.
    func firstMismatch(_ frames: Range<Int64>,
                       _ expected: (Int64) -> (Float, Float)) -> Int64? {
        for f in frames {
            let (l, r) = expected(f)
            if left(f) != l || right(f) != r { return f }
        }
        return nil
    }

    /// The first frame in `frames` whose output is not silent, nil if all are.
    func firstSound(_ frames: Range<Int64>) -> Int64? {
        frames.first { left($0) != 0 || right($0) != 0 }
    }
}

/// The ramp gain of frame `i` of a ramp-in of `length` frames.
func rampIn(_ i: Int64, _ length: Int) -> Float { Float(i) / Float(length) }

/// The ramp gain of frame `i` of a ramp-out of `length` frames from full level.
func rampOut(_ i: Int64, _ length: Int) -> Float { Float(Int64(length) - i) / Float(length) }

/// The crossfade of frame `i`: `new·(i/X) + old·(1 - i/X)`.
func crossfade(_ new: Float, _ old: Float, _ i: Int64, _ length: Int) -> Float {
    let w = Float(i) / Float(length)
    return new * w + old * (1 - w)
}
