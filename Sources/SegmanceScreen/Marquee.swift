/// Scrolls text that is longer than its field: it rests at the start, then moves left one
/// character a step and comes round again after a gap. A pure function of the clock.
public enum Marquee {
    public static let restNanoseconds: Int64 = 1_500_000_000
    public static let stepNanoseconds: Int64 = 400_000_000
    public static let gap: [UInt8] = Array("   ".utf8)

    /// The `width` bytes of `text` to show at monotonic time `now` (ns).
    public static func window(_ text: [UInt8], width: Int, now: Int64) -> [UInt8] {
        guard width > 0 else { return [] }
        guard text.count > width else { return text + [UInt8](repeating: 0x20, count: width - text.count) }
        let loop = text + gap
        let cycle = restNanoseconds + Int64(loop.count) * stepNanoseconds
        let phase = ((now % cycle) + cycle) % cycle
        let offset = phase < restNanoseconds ? 0 : Int((phase - restNanoseconds) / stepNanoseconds) % loop.count
        return (0..<width).map { loop[(offset + $0) % loop.count] }
    }

    /// When `window` next shows something else for a text of `count` bytes in `width`
    /// (the first step after the rest, the next step, the wrap back to the start): a time
    /// after `now`, or nil for a text that fits.
    public static func nextStep(count: Int, width: Int, now: Int64) -> Int64? {
        guard width > 0, count > width else { return nil }
        let cycle = restNanoseconds + Int64(count + gap.count) * stepNanoseconds
        let phase = ((now % cycle) + cycle) % cycle
        // The window moves at rest + k × step for k ≥ 1; the last k lands on the cycle's end.
        let k = phase < restNanoseconds ? 1 : (phase - restNanoseconds) / stepNanoseconds + 1
        return now + restNanoseconds + k * stepNanoseconds - phase
    }
}
