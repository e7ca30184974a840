import Foundation

/// Sticks that crashed, hung or exhausted the box before: a routine.toml of `[\` (toml++
/// failed an assert and aborted), a mutated demo manifest found by fuzzing toml++, a
/// 56 MB routine.toml (over a minute and 280 MB to check), a tree 100 folders deep; and a
/// good routine beside them, which must still import.
public enum HostileSticks {
    /// The demo manifest as a fuzzer damaged it (a bit flip in one cue, a control character
    /// in the third `[[part]]`): one of the cases that aborted toml++.
    /// A routine.toml with three independent problems: a reversed cut, a cut past the end of
    /// a 60 s song.wav, and a loop outside its part. All three must be reported in one pass.
    public static let threeProblemsManifest = """
        [[part]]
        title = "Reversed"
        file = "song.wav"
        from = "0:20"
        to = "0:10"

        [[part]]
        title = "Too long"
        file = "song.wav"
        to = "1:30"

        [[part]]
        title = "Loop outside"
        file = "song.wav"
        from = "0:10"
        to = "0:20"
        loop = { a = "0:05", b = "0:15" }
        """

    public static let mutatedDemoManifest = """
        title = "Street Jam"
        subtitle = "Demo routine"
        countdown = 3

        [[part]]
        title = "Intro"
        file = "street-jam.wav"
        from = "0:00"
        to = "0:16"
        moves = [
          { type = "Dance", name = "Walk in", note = "from stage left" },
          { type = "Dance", name = "Freeze", at = "4:08" },
        ]

        [[part]]
        title = "Groove"
        file = "street-jam.wav"
        from = "0:16"
        to = "0:48"
        loop = { a = "0:08", b = "0:16" }
        moves = [
          { type = "Dance", name = "Box step", at = "0:00" },
          { type = "Juggle", name = "3-ball cascade", note = "eyes up", at = "0:08" },
          { type = "Transition", name = "Spin out", at = "0:24.5" },
        ]

        [[\u{15}part]]
        title = "Finale"
        file = "street-jam.wav"
        from = "0:48"
        to = "1:12"
        moves = [
          { type = "Juggle", name = "Mills mess" },
          { type = "Dance", name = "Final pose", note = "hold 4 counts", at = "0:20" },
        ]

        """

    /// Size of the large manifest: what was measured taking over a minute and 280 MB.
    public static let hugeManifestBytes = 56_000_000

    /// Writes the hostile routines and a good one ("Good", one 0.2 s part) under `root`:
    /// `Bracket/`, `Mutated/`, `Huge/` each with a routine.toml and a short song, and
    /// `Deep/d2/…/d100`, a song at the bottom.
    public static func write(to root: String) throws {
        try TestFiles.mkdir(root + "/Good")
        try TestFiles.tone(root + "/Good/01 Good.wav", seconds: 0.2)
        try routine(root + "/Bracket", manifest: Array("[\\".utf8), song: "song.wav")
        try routine(root + "/Mutated", manifest: Array(mutatedDemoManifest.utf8), song: "street-jam.wav")
        try routine(root + "/Huge", manifest: hugeManifest(), song: "song.wav")
        var deep = root + "/Deep"
        for level in 2...100 { deep += "/d\(level)" }
        try TestFiles.mkdir(deep)
        try TestFiles.tone(deep + "/song.wav", seconds: 0.1)
    }

    private static func routine(_ folder: String, manifest: [UInt8], song: String) throws {
        try TestFiles.mkdir(folder)
        try TestFiles.tone(folder + "/" + song, seconds: 0.2)
        try Data(manifest).write(to: URL(fileURLWithPath: folder + "/routine.toml"))
    }

    /// Manifest-like text (one part with more and more moves), `hugeManifestBytes` long.
    public static func hugeManifest() -> [UInt8] {
        let line = Array("  { type = \"Dance\", name = \"Step\", at = \"0:01\" },\n".utf8)
        var text = Array("[[part]]\nfile = \"song.wav\"\nmoves = [\n".utf8)
        text.reserveCapacity(hugeManifestBytes + line.count)
        while text.count + line.count <= hugeManifestBytes - 2 { text += line }
        text += Array("]\n".utf8)
        text += [UInt8](repeating: UInt8(ascii: "\n"), count: hugeManifestBytes - text.count)
        return text
    }

    /// What `segmance stick check` must report for the stick `write` made (path, reason).
    public static let expectedProblems: [(path: String, reason: String)] = [
        ("Bracket/routine.toml",
         "line 1: TOML syntax error: expected a key (letters, digits, '_' and '-', or a \"quoted\" name), found '\\' (column 2)"),
        ("Bracket", "routine \"Bracket\" skipped: its routine.toml has 1 problem"),
        ("Deep/d2/d3/d4", "1 folder in it is not searched: routines are looked for at most 4 folder levels below the stick"),
        ("Huge/routine.toml",
         "routine.toml is 53.4 MiB; a routine.toml may be at most 256 KiB (it holds titles, cuts, loops and moves, not media)"),
        ("Huge", "routine \"Huge\" skipped: its routine.toml is unusable"),
        ("Mutated/routine.toml",
         "line 27: TOML syntax error: expected a key (letters, digits, '_' and '-', or a \"quoted\" name), found a control character (U+0015) (column 3)"),
        ("Mutated", "routine \"Mutated\" skipped: its routine.toml has 1 problem"),
    ]
}
