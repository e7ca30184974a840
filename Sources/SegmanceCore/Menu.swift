/// The menu, opened with the encoder push. The encoder moves, push selects, long push goes back.
public struct Menu: Equatable, Sendable {
    public enum Item: String, CaseIterable, Equatable, Sendable {
        case routines = "Routines"
        case countdown = "Countdown"
        case countdownBeforeRepeat = "Count again"
        case atPartEnd = "Part end"
        case volume = "Volume"
        case autoImport = "Auto import"
        case loopPause = "Loop pause"
        case loopPasses = "Stop after"
        case lightIdle = "Dim after"
        case loopSnap = "Loop snap"
        case turnBy = "Turn by"
        /// Not a value: pushed while the music plays, the beat nearest becomes the "1".
        case oneHere = "One here"
        case countVoice = "Count voice"
        /// Not a value: the A–B loop's times, nudged with the encoder.
        case abLoop = "A-B loop"
        /// Not a value: every problem of the last stick, read page by page.
        case problems = "Problems"
        /// Not a value: pushed, the part's loop from the stick is back in force (after a LOOP
        /// press hid it, or a loop set on the box replaced it).
        case stickLoop = "Stick loop"
        /// The part's lead-in before its loop's A on every pass after the first (`LeadIn`).
        case leadIn = "Lead-in"
        /// The part's speed ramp while its loop repeats (`SpeedRamp`).
        case ramp = "Ramp"
        // Making on the box (`EditRules`); the list pages are `Page.choosing`.
        /// The routine's parts: pushed on one, it is entered.
        case parts = "Parts"
        /// Not a value: pushed while the music plays, the part splits at the frame heard.
        case split = "Split here"
        /// Not a value: the part and the next become one (undoes a split).
        case join = "Join next"
        /// The part's name, from `Names.parts`.
        case namePart = "Name part"
        /// The part goes, after a second push.
        case deletePart = "Delete part"
        /// The part's named loops: pushed on one, it is the loop in force.
        case loops = "Loops"
        /// The A–B loop on, kept under a name from `Names.parts`.
        case nameLoop = "Name loop"
        /// A move at the frame heard when this entry is pushed, its type from `Names.moveTypes`.
        case addMove = "Add move"
        /// Not a value: the move shown (see `PlayerState.shownMoveIndex`) goes.
        case deleteMove = "Delete move"
        /// Not a value: a new routine of this one's songs, one part per song.
        case newRoutine = "New routine"
        /// Not a value: pushed, the routines changed on the box are written to the stick that is in.
        case saveToStick = "Save to stick"
        /// How long a stop (PLAY held) fades the music out.
        case stopFade = "Stop fade"
        /// Not a value: pushed, LOOP presses (or the encoder's) tap the part's tempo and its "1".
        case tapTempo = "Tap tempo"
        /// The class sets: pushed on one, it plays from its first track (`ClassRules`).
        case classSet = "Class set"
        /// Not a value: a class set of every routine of the list, in its order.
        case newClass = "New class"

        /// The abbreviation table: shorter labels, longest first, for a row where the label
        /// and the value do not fit (16×2: "Voice Spoken" for "Count voice Spoken"). A label
        /// is shown whole, never cut.
        public var shorterLabels: [String] {
            switch self {
            case .countdown: ["Count"]
            case .countdownBeforeRepeat: ["Recount"]
            case .autoImport: ["Import"]
            case .loopPause: ["Loop gap"]
            case .lightIdle: ["Dim"]
            case .oneHere: ["1 here"]
            case .countVoice: ["Voice"]
            case .deletePart: ["Delete"]
            case .leadIn: ["Lead"]
            case .deleteMove: ["Del move"]
            case .saveToStick: ["Save"]
            case .stopFade: ["Fade"]
            case .tapTempo: ["Tap"]
            case .classSet: ["Class"]
            case .newClass: []
            case .routines, .atPartEnd, .volume, .loopPasses, .loopSnap, .turnBy, .stickLoop, .ramp,
                 .abLoop, .problems,
                 .parts, .split, .join, .namePart, .loops, .nameLoop, .addMove, .newRoutine: []
            }
        }
    }

    /// The end of the A–B loop the encoder nudges.
    public enum LoopEnd: Equatable, Sendable { case a, b }

    public enum Page: Equatable, Sendable {
        /// The list of `Item`s.
        case main
        /// The routine list; the cursor is a routine index.
        case routines
        /// Changing the value of an item with the encoder.
        case editing(Item)
        /// The problems of the last stick; the cursor is a page (`ProblemsRules.pages`).
        case problems
        /// The A–B loop's times, the encoder on one end.
        case loopEnds(LoopEnd)
        /// A list to choose from for a making entry (`Menu.rows`); the cursor is the row.
        case choosing(Item)
        /// *Tap tempo*: LOOP and the encoder's push are taps (`Menu.taps`); the long push leaves.
        case tapping
    }

    public var page: Page
    /// Index of the highlighted row of the page.
    public var cursor: Int
    /// *Add move*: the part-relative frame heard when the entry was pushed, where the move goes.
    public var at: FramePosition?
    /// *Tap tempo*: the part-relative frames heard at the taps so far, in order.
    public var taps: [FramePosition]

    public init(page: Page = .main, cursor: Int = 0, at: FramePosition? = nil, taps: [FramePosition] = []) {
        self.page = page
        self.cursor = cursor
        self.at = at
        self.taps = taps
    }

    /// The rows of a `choosing` page: what the encoder walks.
    public static func rows(_ item: Item, _ state: PlayerState) -> [String] {
        switch item {
        case .parts: return state.routine?.parts.map(\.title) ?? []
        case .namePart, .nameLoop: return Names.parts
        case .deletePart: return state.part.map { ["Delete " + $0.title] } ?? []
        case .loops: return state.part?.loops.map(\.name) ?? []
        case .addMove: return Names.moveTypes
        case .classSet: return state.classSets.map(\.name)
        default: return []
        }
    }
}
