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
    /// The pauses offered between repeats of a loop, in seconds; 0 is none.
    public static let loopPauseChoices = [0, 1, 2, 3, 4, 5, 8, 10]
    /// The numbers of passes after which a loop stops; 0 is never.
    public static let loopPassesChoices = [0, 2, 3, 4, 5, 6, 8, 10, 12, 16, 20]
    /// The most volume (percent) the box starts at when the saved one is louder, unless the
    /// configuration says otherwise (`PlayerState.startVolumeMaximum`).
    public static let startVolumeMaximum = 70
    /// The idle times after which the backlight dims, in seconds; 0 is never.
    public static let lightIdleChoices = [0, 30, 60, 120, 300, 600]

    /// Seconds of ticks before playback starts; one of `countdownChoices`.
    public var countdown: Int
    /// Count down again before every repeat of a loop.
    public var countdownBeforeRepeat: Bool
    public var atPartEnd: PartEndBehavior
    /// Output volume in percent, 0...100.
    public var volume: Int
    /// Import a stick as soon as it appears, instead of offering it ("Push to import").
    public var autoImport: Bool
    /// Seconds of silence before each repeat of a loop (before its count-in, when one is
    /// set); one of `loopPauseChoices`. Seconds, because parts have no beat grid yet: the
    /// core turns the setting into frames in one place (`LoopRules.loopPauseFrames`), where
    /// a pause in beats will be converted with the part's grid.
    public var loopPause: Int
    /// A loop plays this many passes, then playback stops at its end (back at its start);
    /// 0 = it repeats until changed. One of `loopPassesChoices`.
    public var loopPasses: Int
    /// Seconds without a control after which the backlight dims; 0 = it stays lit. One of
    /// `lightIdleChoices`.
    public var lightIdle: Int
    /// A count-in of this many beats (one of `countInBeatChoices`) at the part's tempo,
    /// instead of `countdown` seconds; 0 = seconds. A part with no beat grid counts this
    /// many ticks a second apart.
    public var countdownBeats: Int
    /// What loop marks snap to on a part with a beat grid.
    public var loopSnap: LoopSnap
    /// What an encoder detent seeks by while playing.
    public var turnBy: TurnUnit
    /// What the countdown sounds like: ticks, or the counts spoken.
    public var countVoice: CountVoice
    /// Milliseconds a stop (PLAY held) fades the music out over; 0 = the short ramp of a
    /// pause. One of `stopFadeChoices`.
    public var stopFade: Int

    /// The stop fades offered, in milliseconds (0: the short ramp).
    public static let stopFadeChoices = [0, 500, 1000, 2000, 3000]

    /// The count-ins in beats offered: "5, 6, 7, 8" and a full eight.
    public static let countInBeatChoices = [4, 8]

    public init(countdown: Int = 0, countdownBeforeRepeat: Bool = false,
                atPartEnd: PartEndBehavior = .stop, volume: Int = 80, autoImport: Bool = false,
                loopPause: Int = 0, loopPasses: Int = 0, lightIdle: Int = 0,
                countdownBeats: Int = 0, loopSnap: LoopSnap = .beat, turnBy: TurnUnit = .seconds,
                countVoice: CountVoice = .ticks, stopFade: Int = 0) {
        self.stopFade = stopFade
        self.countdown = countdown
        self.countdownBeforeRepeat = countdownBeforeRepeat
        self.atPartEnd = atPartEnd
        self.volume = volume
        self.autoImport = autoImport
        self.loopPause = loopPause
        self.loopPasses = loopPasses
        self.lightIdle = lightIdle
        self.countdownBeats = countdownBeats
        self.loopSnap = loopSnap
        self.turnBy = turnBy
        self.countVoice = countVoice
    }
}
