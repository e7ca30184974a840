import SegmanceScreen

/// Every LCD frame with the time it appeared: "   12.345 |row 0|row 1|", followed by
/// " dark" while the backlight is off.
public struct FrameLog {
    public private(set) var lines: [String] = []
    /// The frames of `lines`, in order: what a driver would have been handed.
    public private(set) var frames: [Frame] = []
    private var last: Frame?

    public init() {}

    /// Records `frame` at `time` (ns) if it differs from the previous one.
    public mutating func record(_ frame: Frame, at time: Int64) {
        guard frame != last else { return }
        last = frame
        frames.append(frame)
        lines.append(
            Self.stamp(time) + " |" + frame.text.joined(separator: "|") + "|" + (frame.backlight ? "" : " dark"))
    }

    /// "   12.345": seconds with milliseconds, right-aligned.
    static func stamp(_ time: Int64) -> String {
        let ms = time / 1_000_000
        let frac = ms % 1000
        let text = "\(ms / 1000)." + (frac < 10 ? "00" : frac < 100 ? "0" : "") + "\(frac)"
        return String(repeating: " ", count: max(0, 9 - text.count)) + text
    }

    public var text: String { lines.joined(separator: "\n") + "\n" }
}
