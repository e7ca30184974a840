/// An A–B loop's facts measured from the captured audio alone, with no render code and no
/// daemon log: the stick's parts are noise that never repeats by itself (`BoxStick`), so two
/// stretches of the capture that are equal sample for sample play the same source frames.
///
/// The loop is marked where it was heard: pass 1 plays straight from A through B (and on,
/// until the loop arrives), pass 2 ends at B, pass 3 starts again at A. Measured:
/// - the period: the lag at which pass 2 repeats in pass 3, searched within `tolerance` of
///   the two heard edges' distance (`heardB − heardA`, capture frames sounding at the
///   kernel's timestamps of LOOP going down);
/// - the seam between passes 2 and 3: the first frame past pass 2's middle that is not what
///   sounded a period before (pass 1 there; a crossfade whose first frame is all B puts it a
///   frame late);
/// - where pass 1 sounded B and A: a period and two periods before the seam;
/// - the crossfade: frames after the seam until the capture goes on exactly as it did two
///   periods before (pass 1 from A).
public struct LoopSeam: Equatable, Sendable {
    /// B − A in frames.
    public var period: Int64
    /// Capture frame of the seam between pass 2 and pass 3.
    public var seam: Int64
    /// Frames after the seam before the capture is pass 1's from A again.
    public var crossfade: Int64
    /// Capture frames at which pass 1 sounded B and A.
    public var b: Int64 { seam - period }
    public var a: Int64 { seam - 2 * period }

    public struct Unmeasurable: Error, CustomStringConvertible {
        public var description: String
    }

    /// `capture`: interleaved stereo. `window`: frames that must match for a lag to count.
    public static func measure(capture: [Int16], heardA: Int64, heardB: Int64, tolerance: Int64,
                               window: Int = 4_800) throws(Unmeasurable) -> LoopSeam {
        let frames = capture.count / 2
        func same(_ x: Int, _ y: Int) -> Bool {
            x >= 0 && y >= 0 && x < frames && y < frames && capture[2 * x] == capture[2 * y]
                && capture[2 * x + 1] == capture[2 * y + 1]
        }
        func matches(_ x: Int, lag: Int) -> Bool { (0..<window).allSatisfy { same(x + $0, x + $0 - lag) } }
        let distance = Int(heardB - heardA)
        guard distance > 4 * Int(tolerance), distance > 4 * window else {
            throw Unmeasurable(description: "edges \(distance) frames apart: too short a loop to measure")
        }
        // A frame of pass 2, past the loop's arrival: a quarter of a period after B was heard.
        let probe = Int(heardB) + distance / 4
        let lags = (distance - Int(tolerance))...(distance + Int(tolerance))
        let found = lags.filter { matches(probe + $0, lag: $0) }
        guard found.count == 1, let period = found.first else {
            throw Unmeasurable(description: "pass 2 from frame \(probe) repeats at \(found.count) lags within "
                + "\(tolerance) of \(distance) (\(found.prefix(3)))")
        }
        var seam = probe
        while seam < frames && same(seam, seam - period) { seam += 1 }
        guard seam < frames else { throw Unmeasurable(description: "no seam after frame \(probe): the capture ends") }
        var resumed = seam
        while resumed < seam + Int(tolerance) && !matches(resumed, lag: 2 * period) { resumed += 1 }
        guard resumed < seam + Int(tolerance) else {
            throw Unmeasurable(description: "after the seam at \(seam) the capture is not pass 1's from A "
                + "(\(2 * period) frames before) within \(tolerance) frames")
        }
        return LoopSeam(period: Int64(period), seam: Int64(seam), crossfade: Int64(resumed - seam))
    }
}
