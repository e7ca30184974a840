/// A position or a duration in frames at the output rate. Never floating seconds.
public typealias FramePosition = Int64

/// A user-named category of moves ("Dance", "Juggle", "Transition", …).
public struct MoveType: Hashable, Sendable {
    public var name: String
    public init(_ name: String) { self.name = name }
}

/// A unit of action within a part. `cue` is the frame (part-relative) at which the
/// move is due; moves without a cue are shown in order.
public struct Move: Equatable, Sendable {
    public var type: MoveType
    public var name: String
    public var note: String
    public var cue: FramePosition?

    public init(type: MoveType, name: String, note: String = "", cue: FramePosition? = nil) {
        self.type = type
        self.name = name
        self.note = note
        self.cue = cue
    }
}

/// An A–B loop inside a part, in part-relative frames. Always `b > a`.
public struct ABLoop: Equatable, Hashable, Sendable {
    public var a: FramePosition
    public var b: FramePosition
    public init(a: FramePosition, b: FramePosition) {
        self.a = a
        self.b = b
    }
}

/// A loop with a name from the short list ("Hit", "Chorus", "A", …), made on the box or
/// given by the stick. A part may have several; `Part.savedLoop` is the one in force.
public struct NamedLoop: Equatable, Hashable, Sendable {
    public var name: String
    public var loop: ABLoop
    public init(name: String, loop: ABLoop) {
        self.name = name
        self.loop = loop
    }
}

/// Names decoded PCM the audio side can resolve (a file path in the twin,
/// a content hash in the library).
public struct AudioReference: Hashable, Sendable, CustomStringConvertible {
    public var id: String
    public init(_ id: String) { self.id = id }
    public var description: String { id }
}

/// A segment of the music: its own audio (a whole file or a cut of one) and its moves.
public struct Part: Equatable, Sendable {
    public var title: String
    public var audio: AudioReference
    /// Cut points in frames of the decoded source; nil = the whole source.
    public var range: Range<FramePosition>?
    /// Length of the part in frames (equals `range.count` when cut).
    public var length: FramePosition
    public var moves: [Move]
    /// The loop in force for the part: the one set on the box when there is one, else the
    /// stick's (`stickLoop`); nil when the box cleared it. It is armed whenever the part is entered.
    public var savedLoop: ABLoop?
    /// The loop the stick's routine.toml gave: never changed on the box, only hidden (a
    /// LOOP press clears `savedLoop`) and brought back (*Stick loop* in the menu).
    public var stickLoop: ABLoop?
    /// The part's named loops (the manifest's `loops`, or made on the box), in order;
    /// `savedLoop` stays the one in force.
    public var loops: [NamedLoop]
    /// The part's beat (from the manifest, detected at import, or the "1" the performer set);
    /// nil when it has no steady beat.
    public var grid: BeatGrid?
    /// Practice speed in percent (50...150 in steps of 5; 100 = as recorded), from the
    /// manifest or set on the device; restored whenever the part is entered.
    public var speed: Int
    /// The name to show on a display that cannot show the title (kanji on a katakana ROM),
    /// from the manifest's `short`; nil when it gave none.
    public var short: String?
    /// Each pass of the part's loop after the first starts this far before A (manifest
    /// `lead_in`, or the menu's *Lead-in*); nil: at A.
    public var leadIn: LeadIn?
    /// The speed climbs pass by pass while the part's loop repeats (manifest `ramp`, or the
    /// menu's *Ramp*); nil: the part's `speed` throughout.
    public var ramp: SpeedRamp?
    /// The part ends with a fade over its last this many frames (the manifest's `fade_out`);
    /// 0: it ends as its audio does.
    public var fadeOut: FramePosition

    public init(title: String, audio: AudioReference, range: Range<FramePosition>? = nil,
                length: FramePosition, moves: [Move] = [], savedLoop: ABLoop? = nil, grid: BeatGrid? = nil,
                speed: Int = 100, stickLoop: ABLoop? = nil, short: String? = nil, loops: [NamedLoop] = [],
                leadIn: LeadIn? = nil, ramp: SpeedRamp? = nil, fadeOut: FramePosition = 0) {
        self.title = title
        self.leadIn = leadIn
        self.ramp = ramp
        self.fadeOut = fadeOut
        self.loops = loops
        self.short = short
        self.audio = audio
        self.range = range
        self.length = length
        self.moves = moves
        self.savedLoop = savedLoop
        self.stickLoop = stickLoop
        self.grid = grid
        self.speed = Rules.clampSpeed(speed)
    }

    /// What the audio side needs to play this part.
    public var playable: PartAudio {
        PartAudio(audio: audio, start: range?.lowerBound ?? 0, length: length, fadeOut: min(fadeOut, length))
    }
}

/// Whose count-in a routine uses when its stick gives one.
public enum CountdownChoice: String, Equatable, Sendable {
    /// The routine's own, from its routine.toml.
    case routine
    /// The teacher's *Countdown* setting, the one every routine without its own uses.
    case mine
}

/// A performance: a title, a subtitle and ordered parts.
public struct Routine: Equatable, Sendable {
    public var title: String
    public var subtitle: String
    /// The count-in in seconds the stick's routine.toml gives (0: none): the routine's default,
    /// never written into the settings; nil when it gives none.
    public var countdown: Int?
    /// Chosen on the box: the routine's own count-in or the teacher's (only matters when
    /// `countdown` is set).
    public var countdownChoice: CountdownChoice
    public var parts: [Part]
    /// The name to show on a display that cannot show the title (kanji on a katakana ROM),
    /// from the manifest's `short`; nil when it gave none.
    public var short: String?

    public init(title: String, subtitle: String = "", countdown: Int? = nil, parts: [Part],
                countdownChoice: CountdownChoice = .routine, short: String? = nil) {
        self.title = title
        self.short = short
        self.subtitle = subtitle
        self.countdown = countdown
        self.countdownChoice = countdownChoice
        self.parts = parts
    }

    /// The routine's own count-in is in force (it has one, and the teacher did not choose theirs).
    public var usesOwnCountdown: Bool { countdown != nil && countdownChoice == .routine }
}
