/// The short lists names are chosen from with the encoder.
public enum Names {
    /// Eights offered as part and loop names ("Eight 1" … "Eight 16").
    public static let eights = 16

    /// Names of parts and loops: the sections of a song, the eights, then A…Z.
    public static let parts: [String] = ["Intro", "Verse", "Chorus", "Bridge", "Break", "Outro"]
        + (1...eights).map { "Eight \($0)" }
        + (UInt8(ascii: "A")...UInt8(ascii: "Z")).map { String(UnicodeScalar($0)) }

    /// Types of the moves added on the box.
    public static let moveTypes = ["Dance", "Juggle", "Formation", "Transition", "Spin", "Lift",
                                   "Jump", "Turn", "Floor", "Pose", "Entrance", "Exit"]
}
