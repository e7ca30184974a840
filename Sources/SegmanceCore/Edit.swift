/// Something made on the box with the controls: a routine's parts cut, joined, named or
/// deleted, its loops named and chosen, its moves added and deleted. The menu's entries do
/// these (`EditRules`); `Event.editRequested` asks for one from outside (the twin's scenario).
public enum Edit: Equatable, Sendable {
    /// The part splits at the frame heard (snapped as a loop mark is); the music plays on
    /// in the second piece.
    case split
    /// The part and the next become one again (same audio, adjacent cuts).
    case join
    /// The part takes this name (one of `Names.parts`).
    case rename(String)
    /// The part goes; the one after it (or before, at the end) is entered.
    case deletePart
    /// Part `n` (from 0) of the routine is entered.
    case goToPart(Int)
    /// The A–B loop in force is kept under this name (one of `Names.parts`) beside the part's others.
    case nameLoop(String)
    /// The part's named loop at this index becomes the loop in force.
    case chooseLoop(Int)
    /// The part's next named loop (after the one in force) becomes the loop in force.
    case nextLoop
    /// A move of this type (one of `Names.moveTypes`) at this part-relative frame (nil: the frame heard).
    case addMove(String, at: FramePosition?)
    /// The move shown (the moves view's, else the one whose cue last came) goes.
    case deleteMove
    /// A new routine of the current one's songs, one whole part per song.
    case newRoutine
}
