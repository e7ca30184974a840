/// What happens when a part plays to its end (with no loop on).
public enum PartEndBehavior: String, CaseIterable, Equatable, Sendable {
    /// Stop and go back to the part's start.
    case stop
    /// Continue seamlessly with the next part of the routine.
    case next
}

/// Performer settings, changed from the menu.
public struct Settings: Equatable, Sendable {
    /// The countdown lengths offered, in seconds; 0 is off.
    public static let countdownChoices = [0, 3, 5, 8, 10, 15, 20]
    /// Volume changes in steps of this many percent.
    public static let volumeStep = 5

    /// Seconds of ticks before playback starts; one of `countdownChoices`.
    public var countdown: Int
    /// Count down again before every repeat of a loop.
    public var countdownBeforeRepeat: Bool
    public var atPartEnd: PartEndBehavior
    /// Output volume in percent, 0...100.
    public var volume: Int
    /// Import a stick as soon as it appears, instead of offering it ("Push to import").
    public var autoImport: Bool

    public init(countdown: Int = 0, countdownBeforeRepeat: Bool = false,
                atPartEnd: PartEndBehavior = .stop, volume: Int = 80, autoImport: Bool = false) {
        self.countdown = countdown
        self.countdownBeforeRepeat = countdownBeforeRepeat
        self.atPartEnd = atPartEnd
        self.volume = volume
        self.autoImport = autoImport
    }
}
