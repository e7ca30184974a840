/// What a countdown sounds like: clicks, or the counts spoken ("five, six, seven, eight";
/// "three, two, one"). Spoken counts need their sounds prepared by the audio side's owner;
/// without them the count falls back to ticks.
public enum CountVoice: String, CaseIterable, Equatable, Sendable {
    /// A click a count, the accented one louder and higher.
    case ticks
    /// The count's number, spoken on its beat.
    case spoken
}
