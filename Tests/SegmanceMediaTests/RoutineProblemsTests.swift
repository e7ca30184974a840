import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import Testing

/// A routine with several problems reports every one of them in one pass (the performer
/// fixes them all at home at once), also those that need the audio's length; the bad parts
/// are left out and, with no good one, each song is a part: nothing on the stick is lost.
@Suite(.tags(.integration)) struct RoutineProblemsTests {
    let temp = TempDirs()

    /// A routine folder "Juggling" with a 60 s `song.wav` and `toml`; the stick's root.
    private func stick(_ toml: String) throws -> String {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Juggling")
        try TestFiles.tone(root + "/Juggling/song.wav", seconds: 60, rate: 8000)
        try TestFiles.writeText(toml, to: root + "/Juggling/routine.toml")
        return root
    }

    @Test func threeIndependentProblemsAreAllListed() throws {
        let content = StickChecker().check(try stick(HostileSticks.threeProblemsManifest))
        #expect(content.routines.map { $0.parts.map(\.title) } == [["song"]])
        #expect(content.problems.map(\.description) == [
            "Juggling/routine.toml: line 5: part 1: 'from' 0:20 must be before 'to' 0:10",
            "Juggling/routine.toml: line 10: part 2: 'to' 1:30 is past the end of \"song.wav\" (1:00)",
            "Juggling/routine.toml: line 17: part 3: loop 0:05–0:15 lies outside the part (length 0:10; loop times are part-relative)",
            "Juggling: no part of its routine.toml can be used: each song is a part",
        ])
        #expect(content.problems.map(\.line) == [5, 10, 17, nil])
    }

    @Test func problemsOfEveryKindInOnePass() throws {
        let content = StickChecker().check(try stick("""
            countdown = 7
            tempo = 120
            [[part]]
            file = "missing.wav"
            [[part]]
            file = "song.wav"
            to = "1:75"
            loop = { a = "0:05", b = "0:50" }
            [[part]]
            file = "song.wav"
            from = "0:50"
            moves = [
              { type = "Dance", name = "Late", at = "0:30" },
              { name = "Later", at = "0:40" },
            ]
            [[part]]
            file = "../escape.wav"
            """))
        #expect(content.routines.map { $0.parts.map(\.title) } == [["song"]])
        #expect(content.problems.map(\.description) == [
            "Juggling/routine.toml: line 1: countdown 7 is not one of 0, 3, 5, 8, 10, 15, 20",
            "Juggling/routine.toml: line 2: unknown key 'tempo' (known: countdown, part, short, subtitle, title)",
            "Juggling/routine.toml: line 4: part 1: file \"missing.wav\" not found",
            "Juggling/routine.toml: line 7: part 2: 'to' = \"1:75\" is not a time (write \"m:ss\", \"m:ss.s\", \"h:mm:ss\" or seconds)",
            "Juggling/routine.toml: line 13: part 3: move \"Late\" cue 0:30 is past the part end (0:10; cue times are part-relative)",
            "Juggling/routine.toml: line 14: part 3: move \"Later\" cue 0:40 is past the part end (0:10; cue times are part-relative)",
            "Juggling/routine.toml: line 17: part 4: 'file' = \"../escape.wav\" leaves the routine folder; paths stay inside it",
            "Juggling: no part of its routine.toml can be used: each song is a part",
        ])
    }

    /// A bad part leaves only itself out; the song no good part names is named too.
    @Test func aBadPartIsLeftOutAndTheGoodOnesImport() throws {
        let root = try stick("""
            title = "Act"
            [[part]]
            file = "song.wav"
            to = "0:30"
            [[part]]
            file = "song.wav"
            from = "0:30"
            to = "1:30"
            """)
        try TestFiles.tone(root + "/Juggling/encore.wav", seconds: 1, rate: 8000)
        let content = StickChecker().check(root)
        #expect(content.routines.map(\.title) == ["Act"])
        let act = try #require(content.routines.first)
        #expect(act.parts.map(\.length) == [FramePosition(30 * 48_000)])
        #expect(content.problems.map(\.description) == [
            "Juggling/routine.toml: line 8: part 2: 'to' 1:30 is past the end of \"song.wav\" (1:00)",
            "Juggling: routine \"Act\" imported without part 2 of its routine.toml",
            "Juggling: not in routine.toml: encore.wav",
        ])
    }

    /// A manifest without parts: its own problems and those of the audio files, together.
    @Test func aManifestProblemAndAnAudioProblemTogether() throws {
        let root = try stick("countdown = \"soon\"\n")
        try TestFiles.writeEmpty(root + "/Juggling/broken.wav")
        let content = StickChecker().check(root)
        #expect(content.routines.map { $0.parts.map(\.title) } == [["song"]])
        #expect(content.routines.first?.countdown == nil)
        #expect(content.problems.map(\.description) == [
            "Juggling/broken.wav: empty file (0 bytes)",
            "Juggling/routine.toml: line 1: countdown must be a whole number of seconds, found string",
        ])
    }
}
