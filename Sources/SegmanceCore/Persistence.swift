/// Where the performer left off: restored at boot.
public struct ResumePoint: Equatable, Sendable {
    /// The routine's title (titles are unique in the library).
    public var routine: String
    /// The part's index in the routine, and its title to recognise it after a re-import.
    public var part: Int
    public var partTitle: String
    /// Part-relative frame.
    public var position: FramePosition

    public init(routine: String, part: Int, partTitle: String, position: FramePosition) {
        self.routine = routine
        self.part = part
        self.partTitle = partTitle
        self.position = position
    }
}

/// State the edges keep on disk. The core asks for a write only on pause, stop, part or
/// routine change, loop change and leaving a setting — never continuously (SD cards wear).
public enum Persist: Equatable, Sendable {
    /// Where playback is now.
    case resume(ResumePoint)
    /// An A–B loop learned on the device for a part; nil = cleared on the device.
    case savedLoop(routine: String, part: Int, partTitle: String, loop: ABLoop?)
    /// The performer's settings.
    case settings(Settings)
    /// The "1" the performer set for a part (its grid, origin `.performer`).
    case grid(routine: String, part: Int, partTitle: String, grid: BeatGrid)
    /// A part's practice speed set on the device (percent, 100 = as recorded).
    case partSpeed(routine: String, part: Int, partTitle: String, speed: Int)
    /// A part's lead-in and speed ramp set on the device (the menu's *Lead-in* and *Ramp*); nil: none.
    case partPractice(routine: String, part: Int, partTitle: String, leadIn: LeadIn?, ramp: SpeedRamp?)
    /// Whose count-in a routine with its own uses, chosen on the device.
    case countdownChoice(routine: String, choice: CountdownChoice)
    /// The part's loop from the stick is in force again: what the device set for it is forgotten.
    case stickLoopBack(routine: String, part: Int, partTitle: String)
    /// The routine's parts as made on the box (split, joined, named, deleted; loops named,
    /// moves added or deleted): kept as the teacher's layer, apart from the stick's parts.
    case parts(routine: String, parts: [Part])
    /// A new routine made on the box from these songs, one whole part each.
    case newRoutine(title: String, songs: [Song])
    /// A class set made on the box (one of this name is replaced).
    case classSet(ClassSet)
}

/// What the library holds at boot.
public struct LibrarySnapshot: Equatable, Sendable {
    public var routines: [Routine]
    /// The saved settings; nil when none were ever saved (the defaults stay).
    public var settings: Settings?
    public var resume: ResumePoint?
    /// The class sets, in order.
    public var classSets: [ClassSet]

    public init(routines: [Routine], settings: Settings? = nil, resume: ResumePoint? = nil,
                classSets: [ClassSet] = []) {
        self.routines = routines
        self.settings = settings
        self.resume = resume
        self.classSets = classSets
    }
}
