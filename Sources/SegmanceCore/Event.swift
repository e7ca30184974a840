/// The logical controls of the appliance. `select` is the encoder's push switch.
public enum Button: String, CaseIterable, Hashable, Sendable {
    case play, prev, next, loop, select
}

/// Something that happened. Time enters only as timestamps and frame positions.
public enum Event: Equatable, Sendable {
    /// The appliance came up: the audio side learns the settings.
    case booted
    case buttonPressed(Button)
    case buttonLongPressed(Button)
    case buttonDoublePressed(Button)
    /// Encoder detents, acceleration already applied; positive is clockwise.
    case encoderTurned(Int)
    /// Encoder detents turned while a button was held down (a chord: PLAY held and the
    /// encoder turned is the volume). The held button reports no press of its own.
    case encoderTurnedHolding(Button, Int)
    /// What was sounding at the output at the instant of the control event that follows
    /// (the edge's kernel timestamp): a source frame of the current part. The edges send it
    /// before a control while audio plays, so a mark, a seek or PREV acts where the
    /// performer heard the music, not where the render side has got to (up to a device
    /// buffer ahead, a loop's seam or a seek away).
    case heard(FramePosition)
    /// The monotonic clock, in nanoseconds. Expires messages, drives the marquee.
    case clock(Int64)
    /// A report from the audio side.
    case audio(AudioReport)
    /// The set of routines available changed (a routine was imported or removed).
    case routinesLoaded([Routine])
    /// The class sets available changed (a class.toml imported, a set made on the box).
    case classSetsLoaded([ClassSet])
    /// At boot, after `.booted`: what the library holds, settings and where the performer left off.
    case restored(LibrarySnapshot)
    /// A stick appeared (mounted under the media root, or the twin's `stick` action).
    case stickInserted(StickOffer)
    /// A stick went away.
    case stickRemoved(path: String)
    /// A stick was plugged in that cannot be read (APFS, an unknown file system, …).
    case stickRefused(StickRefusal)
    /// Import the stick on offer now (the encoder push on the offer, or a request from outside).
    case importRequested
    /// Something to make on the box, asked for from outside the menu (the twin's scenario):
    /// done as the menu's entry does it, at the frame heard with it.
    case editRequested(Edit)
    /// The import under way moved on.
    case importProgress(ImportProgress)
    /// The import ended (done, or stopped early with a reason).
    case importFinished(ImportSummary)
    /// A problem with a file of the stick being imported (kept for the problems view).
    case problemFound(FileProblem)
    /// Something to tell the performer (stick found, a problem, import progress).
    case notice(Notice)
    /// A save the core asked for did not reach the card (it is kept and tried again).
    case saveFailed(diskFull: Bool)
    /// Every save that had failed has now reached the card.
    case unsavedWorkSaved
    /// The appliance is about to stop (the service is stopped, the board shuts down):
    /// the audio ramps out instead of being cut, and where the performer was is kept.
    case shuttingDown
}

/// A message for the screen, shown for a while.
public struct Notice: Equatable, Sendable {
    public enum Kind: Equatable, Sendable { case info, problem, progress }
    public var kind: Kind
    public var lines: [String]
    /// How long it stays, in nanoseconds.
    public var duration: Int64
    public init(_ kind: Kind, _ lines: [String], duration: Int64 = 3_000_000_000) {
        self.kind = kind
        self.lines = lines
        self.duration = duration
    }
}
