/// What the controls that act where the music was heard (LOOP, a plain detent) truly acted
/// at, as the capture played it, measured against a twin that heard the music where the
/// kernel's timestamps of their edges say it sounded (`TwinScenario.place` with edges and
/// the first start's alignment). The edge alone places a mark within the capture pointer's
/// step; the capture's audio says exactly where the daemon's marks and seeks went, with no
/// daemon log: the stick's parts are noise that never repeats, so an offset at which two
/// stretches agree sample for sample is the one. The twin placed again at `positions`
/// (`place(_:edges:heard:)`) plays what the daemon played; `positions` minus
/// `edgePositions` is how far from its edge's instant each control acted.
public struct HeardMeasurement: Sendable {
    /// Per control: the part position the capture played as the one it heard (nil for
    /// controls that do not act where heard).
    public var positions: [Int64?]
    /// Per control: the part position sounding at the timestamp of its heard edge, by the
    /// capture's own alignment with the twin there (nil likewise).
    public var edgePositions: [Int64?]

    public struct Unmeasurable: Error, CustomStringConvertible {
        public var description: String
    }

    /// Measures the A–B loop's two LOOPs and each plain detent of `controls`. `placement`:
    /// the twin placed at the heard edges; `twin`, its audio; capture = twin + `shift` up to
    /// the first command (the first start's alignment, which `placement` used). `period`:
    /// the device's period; `periods`: its buffer in periods.
    public init(controls: [ControlRecord], placement: TwinScenario.Placement, capture: [Int16], twin: [Int16],
                shift: Int64, period: Int64, periods: Int64) throws {
        positions = Array(repeating: nil, count: controls.count)
        edgePositions = Array(repeating: nil, count: controls.count)
        let loops = controls.indices.filter { controls[$0].action == "press loop" && controls[$0].transport == "playing" }
        if loops.count == 2, let heardA = placement.heardFrames[loops[0]], let heardB = placement.heardFrames[loops[1]],
           let positionA = placement.heardPositions[loops[0]], let positionB = placement.heardPositions[loops[1]] {
            let (a, b) = try Self.loop(capture: capture, twin: twin, heardA: heardA, heardB: heardB,
                                       offset: shift, tolerance: period * periods)
            positions[loops[0]] = positionA + a
            positions[loops[1]] = positionB + b
            edgePositions[loops[0]] = positionA
            edgePositions[loops[1]] = positionB
        }
        for i in controls.indices where controls[i].actsWhereHeard && controls[i].action.hasPrefix("turn") {
            guard let position = placement.heardPositions[i] else { continue }
            let seek = try Self.seek(capture: capture, twin: twin, applied: placement.controlFrames[i], shift: shift,
                                     period: period, maxDelay: 2 * period)
            positions[i] = position + seek.fromTwin
            edgePositions[i] = position - seek.drift
        }
    }

    /// How far the capture's A and B lie from the twin's (frames, so positions at 100 %):
    /// the loop's seam measured in the capture and in the twin alike (`LoopSeam`, so the
    /// frame the seam is found at within the crossfade is the same in both). `heardA` and
    /// `heardB`: the twin frames at which the twin heard A and B; capture = twin + `offset`
    /// there.
    static func loop(capture: [Int16], twin: [Int16], heardA: Int64, heardB: Int64, offset: Int64,
                     tolerance: Int64) throws -> (a: Int64, b: Int64) {
        let played = try LoopSeam.measure(capture: capture, heardA: heardA + offset, heardB: heardB + offset,
                                          tolerance: tolerance)
        let twins = try LoopSeam.measure(capture: twin, heardA: heardA, heardB: heardB, tolerance: tolerance)
        return (played.a - offset - twins.a, played.b - offset - twins.b)
    }

    /// A seek the twin applied at twin frame `applied`: the capture matches the twin at one
    /// offset before it (`before`: the start's `shift` and whatever commands applied later
    /// since, so the twin heard its edge `drift` = before − shift frames late) and another
    /// after it: before + delay − e, where the daemon's seek applied `delay` later (none, or
    /// whole periods up to `maxDelay`) from a position `e` = `fromTwin` frames on from the
    /// twin's. e + drift (where it acted against its edge) within half a period tells the
    /// delay from the position.
    static func seek(capture: [Int16], twin: [Int16], applied: Int64, shift: Int64, period: Int64, maxDelay: Int64,
                     window: Int = 4_800) throws -> (fromTwin: Int64, drift: Int64) {
        let frames = (capture: capture.count / 2, twin: twin.count / 2)
        func offsets(from: Int, in range: ClosedRange<Int>) throws -> Int {
            guard from >= 0, from + window <= frames.twin else {
                throw Unmeasurable(description: "twin frames \(from)..<\(from + window) are not in the twin's audio")
            }
            let found = range.filter { offset in
                (from..<(from + window)).allSatisfy { t in
                    let c = t + offset
                    return c >= 0 && c < frames.capture && capture[2 * c] == twin[2 * t] && capture[2 * c + 1] == twin[2 * t + 1]
                }
            }
            guard found.count == 1, let offset = found.first else {
                throw Unmeasurable(description: "around the seek at twin frame \(applied), the capture is the twin's audio "
                    + "from frame \(from) at \(found.count) offsets in \(range) (\(found.prefix(3)))")
            }
            return offset
        }
        // Before: past the twin's last command by then at most a buffer and a half late.
        let reach = Int(period * 8)
        let before = Int64(try offsets(from: Int(applied - 4 * period) - window,
                                       in: (Int(shift) - reach)...(Int(shift) + reach)))
        let drift = before - shift
        let half = period / 2
        let after: Int64
        do {
            after = Int64(try offsets(from: Int(applied + 4 * period),
                                      in: Int(before + drift - half)...Int(before + drift + maxDelay + half)))
        } catch {
            throw Unmeasurable(description: "\(error): the daemon's seek was made more than half a period "
                + "(\(half) frames) from what sounded at its edge, or applied more than \(maxDelay) frames late")
        }
        // after − before = delay − e with e = (e + drift) − drift, |e + drift| < half.
        let x = after - before - drift
        let delay = min(maxDelay, max(0, (x + half) / period * period))
        return (delay - x - drift, drift)
    }
}
