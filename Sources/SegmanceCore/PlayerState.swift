/// Where the transport is.
public enum Transport: Equatable, Sendable {
    case stopped
    case paused
    /// Ticks are sounding; playback starts when they end.
    case countingDown(Countdown)
    case playing
}

/// A countdown in progress.
public struct Countdown: Equatable, Sendable {
    /// What the transport returns to if the countdown is cancelled.
    public enum Origin: Equatable, Sendable { case stopped, paused, playing }
    /// Seconds (or beats) still to count, as shown ("3", "2", "1").
    public var remaining: Int
    public var origin: Origin
    /// A count-in in beats: the count of its first sound in the eight (5 for "5, 6, 7, 8");
    /// nil when it counts seconds.
    public var firstCount: Int?
    /// Counts in all (beats); with `remaining`, which count sounds.
    public var total: Int
    public init(remaining: Int, origin: Origin, firstCount: Int? = nil, total: Int? = nil) {
        self.remaining = remaining
        self.origin = origin
        self.firstCount = firstCount
        self.total = total ?? remaining
    }

    /// What the screen shows: the seconds left, or the count in the eight of the beat
    /// sounding ("5", "6", "7", "8").
    public var shown: Int {
        guard let firstCount else { return remaining }
        return (firstCount - 1 + max(0, total - remaining)) % 8 + 1
    }
}

/// The loop in force. The part loop and the A–B loop exclude each other.
public enum LoopMode: Equatable, Sendable {
    case off
    /// The whole part repeats.
    case part
    /// A is marked; the next LOOP press marks B.
    case markedA(FramePosition)
    /// The A–B loop is on.
    case ab(ABLoop)
}

/// What the screen shows when no menu or message is up.
public enum View: Equatable, Sendable {
    case nowPlaying
    case moves
}

/// A notice on screen until `until` (monotonic ns).
public struct ShownNotice: Equatable, Sendable {
    public var notice: Notice
    public var until: Int64
    public init(notice: Notice, until: Int64) {
        self.notice = notice
        self.until = until
    }
}

/// Everything the appliance knows. Owned by the control loop, changed only by `reduce`.
public struct PlayerState: Equatable, Sendable {
    /// Output frames per second; all positions are counted at this rate.
    public var sampleRate: Int64
    public var routines: [Routine]
    /// Index into `routines`; nil while there is none.
    public var routineIndex: Int?
    public var partIndex: Int
    public var transport: Transport
    /// Part-relative frame of playback (the engine's, as last reported).
    /// The source frame that was sounding at the instant of the control being handled
    /// (`Event.heard`): where a mark, a seek or PREV's "back to the start" act. Cleared
    /// after each control; nil when nothing was playing or the edges could not say.
    public var heard: FramePosition?
    public var position: FramePosition
    public var loop: LoopMode
    public var settings: Settings
    public var menu: Menu?
    public var view: View
    public var notice: ShownNotice?
    /// Notices waiting for the screen, shown one after another.
    public var pendingNotices: [Notice]
    /// The monotonic clock (ns) as of the last `.clock` event.
    public var now: Int64
    /// The epoch of the last timeline command sent to the audio side.
    public var epoch: UInt32
    /// A stick that is present and not yet imported.
    public var stick: StickOffer?
    /// The import under way, if any.
    public var importing: ImportProgress?
    /// The pass of the loop now playing, from 1: the counter on the screen.
    public var loopPass: Int
    /// Audio played forward (frames) since the resume point was last written; at
    /// `Rules.resumeSaveSeconds` it is written again.
    public var unsavedPlay: FramePosition
    /// Whether the backlight is lit (the frame carries it to the display).
    public var backlight: Bool
    /// When a control was last used (monotonic ns); followed only while the light can dim.
    public var lastControl: Int64
    /// The volume bar shows until then (ns), after the volume gesture.
    public var volumeShownUntil: Int64?
    /// The routine's title shows on the now-playing screen until then (ns): after a part
    /// change and on the encoder's long push.
    public var titleShownUntil: Int64?
    /// The move the encoder points at in the moves view; nil follows the cues.
    public var moveCursor: Int?
    /// The speed the part plays at, in percent of its tempo (100 = as recorded; the
    /// part's `speed`). Wall-clock durations of musical time scale by 100/speedPercent.
    public var speedPercent: Int
    /// Every problem of the last stick (its import, or its refusal), for the problems view;
    /// kept until the next stick.
    public var problems: [FileProblem]
    /// Problems came that the view has not shown yet: the menu opens on them.
    public var problemsUnread: Bool
    /// The display the problems view pages its text over.
    public var display: DisplaySize
    /// Notices still waiting show no sooner than this (ns): a control came a moment ago.
    public var noticesHeldUntil: Int64?
    /// The A–B loop's times show in place of the clock until then (ns), after a mark.
    public var loopTimesShownUntil: Int64?
    /// Where the last play started (PLAY, a move's cue, a loop's start, a part entered while
    /// playing): where *Again* (PREV's double press) goes back to. Nil until something played
    /// in this part.
    public var lastStart: FramePosition?
    /// The volume at power-on is the saved one, at most this (percent): a loud class's last
    /// volume does not blast the next morning's first song (`start_volume_max` of the config).
    public var startVolumeMaximum: Int
    /// The class sets (a class.toml's, and those made on the box), in order.
    public var classSets: [ClassSet]
    /// The class set under way, if any.
    public var classRun: ClassRun?

    public init(sampleRate: Int64 = 48_000, settings: Settings = Settings(),
                routines: [Routine] = [], startVolumeMaximum: Int = Settings.startVolumeMaximum) {
        self.lastStart = nil
        self.startVolumeMaximum = min(max(startVolumeMaximum, 0), 100)
        self.sampleRate = sampleRate
        self.routines = routines
        self.routineIndex = routines.isEmpty ? nil : 0
        self.partIndex = 0
        self.transport = .stopped
        self.position = 0
        self.loop = .off
        self.settings = settings
        self.menu = nil
        self.view = .nowPlaying
        self.notice = nil
        self.pendingNotices = []
        self.now = 0
        self.epoch = 0
        self.stick = nil
        self.importing = nil
        self.loopPass = 1
        self.unsavedPlay = 0
        self.backlight = true
        self.lastControl = 0
        self.volumeShownUntil = nil
        self.titleShownUntil = nil
        self.moveCursor = nil
        self.speedPercent = 100
        self.problems = []
        self.problemsUnread = false
        self.display = DisplaySize()
        self.noticesHeldUntil = nil
        self.loopTimesShownUntil = nil
        self.classSets = []
        self.classRun = nil
    }

    /// The routine in use, if any.
    public var routine: Routine? {
        guard let routineIndex, routines.indices.contains(routineIndex) else { return nil }
        return routines[routineIndex]
    }

    /// The part in use, if any.
    public var part: Part? {
        guard let routine, routine.parts.indices.contains(partIndex) else { return nil }
        return routine.parts[partIndex]
    }

    /// The "Push to import" offer is on screen: the encoder push answers it.
    public var stickOfferShown: Bool {
        guard let stick, !stick.dismissed, importing == nil, menu == nil else { return false }
        return true
    }

    /// The move the moves view shows: the one the encoder points at, else `currentMoveIndex`.
    public var shownMoveIndex: Int? {
        guard let part, !part.moves.isEmpty else { return nil }
        if let moveCursor, part.moves.indices.contains(moveCursor) { return moveCursor }
        return currentMoveIndex
    }

    /// The count-in in force, in layers: the routine's own (from its stick) unless the teacher
    /// chose theirs for it, else the teacher's *Countdown* setting. Seconds (0: none), or
    /// beats when `countdownBeats` is above 0.
    public var countdownSeconds: Int {
        if let routine, routine.usesOwnCountdown, let own = routine.countdown { return own }
        return settings.countdown
    }

    /// The count-in in beats in force (0: it counts seconds); a routine's own count-in is in seconds.
    public var countdownBeats: Int {
        if let routine, routine.usesOwnCountdown { return 0 }
        return settings.countdownBeats
    }

    /// The count-in's length in force: beats when it counts beats, else seconds; 0 is none.
    public var countInCount: Int { countdownBeats > 0 ? countdownBeats : countdownSeconds }

    /// Whether a loop (A–B or the whole part) is on, so its passes are counted.
    public var loopIsOn: Bool {
        switch loop {
        case .part, .ab: true
        case .off, .markedA: false
        }
    }

    /// The index of the move to show: the last one whose cue has come, else the first.
    public var currentMoveIndex: Int? {
        guard let part, !part.moves.isEmpty else { return nil }
        var current = 0
        for (i, move) in part.moves.enumerated() {
            if let cue = move.cue, cue <= position { current = i }
        }
        return current
    }
}
