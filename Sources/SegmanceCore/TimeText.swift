/// Formats part positions for a character display.
public enum TimeText {
    /// "m:ss" for a frame count (truncated to the second), e.g. 65.5 s -> "1:05".
    public static func minutesSeconds(_ frames: FramePosition, sampleRate: Int64) -> String {
        let seconds = max(0, frames) / max(1, sampleRate)
        let s = seconds % 60
        return "\(seconds / 60):\(s < 10 ? "0" : "")\(s)"
    }
}

extension TimeText {
    /// "m:ss.t" for a frame count (truncated to the tenth), e.g. 8.25 s -> "0:08.2".
    public static func tenths(_ frames: FramePosition, sampleRate: Int64) -> String {
        let rate = max(1, sampleRate)
        let tenth = max(0, frames) % rate * 10 / rate
        return minutesSeconds(frames, sampleRate: rate) + ".\(tenth)"
    }
}
