import AudioDecoding
import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import Testing

@Suite(.tags(.integration)) struct StickCheckerTests {
    let temp = TempDirs()
    let loader = StickChecker()

    /// A stick root holding one routine folder `name`; returns (root, folder).
    private func stick(_ name: String = "Salsa") throws -> (String, String) {
        let root = try temp.make("stick")
        let folder = root + "/" + name
        try TestFiles.mkdir(folder)
        return (root, folder)
    }

    private func reasons(_ content: StickContent) -> [String] { content.problems.map(\.description) }

    @Test func zeroConfigFolderIsARoutineInNaturalOrder() throws {
        let (root, folder) = try stick("Salsa Shines")
        try TestFiles.tone(folder + "/10 Outro.wav", seconds: 0.25)
        try TestFiles.tone(folder + "/2 Shines.flac", seconds: 0.5, format: .flac16)
        try TestFiles.tone(folder + "/1 Intro.wav", seconds: 1)
        try TestFiles.writeText("not audio, not a problem", to: folder + "/notes.txt")
        let content = loader.check(root)
        #expect(content.problems.isEmpty, "\(reasons(content))")
        try #require(content.routines.count == 1)
        let routine = content.routines[0]
        #expect(routine.title == "Salsa Shines")
        #expect(routine.countdown == nil)
        #expect(routine.parts.map(\.title) == ["Intro", "Shines", "Outro"])
        #expect(routine.parts.map(\.length) == [48000, 24000, 12000])
        #expect(routine.parts.map(\.audio.id) == ["Salsa Shines/1 Intro.wav", "Salsa Shines/2 Shines.flac",
                                                  "Salsa Shines/10 Outro.wav"])
        #expect(routine.parts.allSatisfy { $0.range == nil })
    }

    @Test func theClassSetsProblemsAreTheSticks() throws {
        let (root, folder) = try stick("Salsa")
        try TestFiles.tone(folder + "/1 Intro.wav", seconds: 0.25)
        try TestFiles.writeText("""
            [[class]]
            name = "Monday"
            gap = "soon"
            tracks = ["Salsa"]
            """, to: root + "/class.toml")
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["Salsa"])
        #expect(reasons(content) == [
            "class.toml: line 3: class 1: 'gap' = \"soon\" is not a gap (write whole seconds like \"3 s\", 0 to 120)",
        ])
    }

    @Test func debrisIsSkippedSilently() throws {
        let (root, folder) = try stick()
        try TestFiles.tone(folder + "/01 Intro.wav", seconds: 0.1)
        // AppleDouble companions are not audio even though they say .wav.
        try TestFiles.writeText("junk", to: folder + "/._01 Intro.wav")
        try TestFiles.writeText("junk", to: folder + "/.DS_Store")
        for junk in [".Spotlight-V100", ".Trashes", ".fseventsd", "System Volume Information", "$RECYCLE.BIN"] {
            try TestFiles.mkdir(root + "/" + junk)
            try TestFiles.writeText("x", to: root + "/" + junk + "/a.wav")
        }
        let content = loader.check(root)
        #expect(content.problems.isEmpty, "\(reasons(content))")
        #expect(content.routines.map(\.title) == ["Salsa"])
        #expect(content.routines.first?.parts.count == 1)
    }

    @Test func nestedFoldersUpToFourLevels() throws {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/a/b/c/d/e")
        try TestFiles.tone(root + "/a/b/Two deep.wav", seconds: 0.1)
        try TestFiles.tone(root + "/a/b/c/d/Four deep.wav", seconds: 0.1)
        try TestFiles.tone(root + "/a/b/c/d/e/Five deep.wav", seconds: 0.1)
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["b", "d"])
    }

    @Test func badFileFailsOnlyItsPart() throws {
        let (root, folder) = try stick()
        try TestFiles.tone(folder + "/01 Good.wav", seconds: 0.1)
        try TestFiles.writeEmpty(folder + "/02 Empty.wav")
        try TestFiles.writeText("lyrics", to: folder + "/03 Lyrics.mp3")
        try Data(Array("MThd".utf8) + [0, 0, 0, 6, 0, 0, 0, 1, 0, 96]).write(to: URL(fileURLWithPath: folder + "/04 Ringtone.mid"))
        let content = loader.check(root)
        #expect(content.routines.first?.parts.map(\.title) == ["Good"])
        #expect(reasons(content) == [
            "Salsa/02 Empty.wav: empty file (0 bytes)",
            "Salsa/03 Lyrics.mp3: not an audio file (it is a text file)",
            "Salsa/04 Ringtone.mid: unsupported format (MIDI); supported: \(AudioFormats.supportedSummary)",
        ])
    }

    @Test func folderWithNoPlayablePartsIsDropped() throws {
        let (root, folder) = try stick()
        try TestFiles.writeEmpty(folder + "/only.wav")
        let other = root + "/Tango"
        try TestFiles.mkdir(other)
        try TestFiles.tone(other + "/Tango.wav", seconds: 0.1)
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["Tango"])
        #expect(reasons(content).contains("Salsa: routine \"Salsa\" skipped: no playable parts"))
    }

    @Test func truncatedFileIsAProblem() throws {
        let (root, folder) = try stick()
        try TestFiles.tone(folder + "/a.wav")
        try TestFiles.truncate(folder + "/a.wav", to: try TestFiles.size(folder + "/a.wav") / 2)
        let content = loader.check(root)
        #expect(content.routines.isEmpty)
        #expect(content.problems.first?.path == "Salsa/a.wav")
        #expect(content.problems.first?.reason.hasPrefix("truncated file:") == true)
    }

    // MARK: Manifests

    private let song = "song.wav"

    /// A routine folder with a 60 s tone and the given manifest.
    private func manifestStick(_ toml: String, seconds: Double = 60, rate: Int = 48000) throws -> String {
        let (root, folder) = try stick("Juggling")
        try TestFiles.tone(folder + "/" + song, seconds: seconds, rate: rate)
        try TestFiles.writeText(toml, to: folder + "/routine.toml")
        return root
    }

    @Test func manifestCutsOneFileIntoParts() throws {
        let root = try manifestStick("""
            title = "Juggling Act"
            subtitle = "Kihoku summer festival"
            countdown = 5

            [[part]]
            title = "Opening"
            file = "song.wav"
            from = "0:00"
            to = "0:30.5"
            loop = { a = "0:20", b = "0:30" }
            moves = [
              { type = "Juggle", name = "5-ball cascade", note = "face the audience" },
              { type = "Dance", name = "Spin", at = "0:12.5" },
            ]

            [[part]]
            file = "song.wav"
            from = 30.5
            to = "0:45"

            [[part]]
            title = "Whole"
            file = "song.wav"
            """)
        let content = loader.check(root)
        #expect(content.problems.isEmpty, "\(reasons(content))")
        let routine = try #require(content.routines.first)
        #expect(routine.title == "Juggling Act")
        #expect(routine.subtitle == "Kihoku summer festival")
        #expect(routine.countdown == 5)
        #expect(routine.parts.map(\.title) == ["Opening", "song", "Whole"])
        let opening = routine.parts[0]
        #expect(opening.range == 0..<1_464_000)
        #expect(opening.length == 1_464_000)
        #expect(opening.savedLoop == ABLoop(a: 960_000, b: 1_440_000))
        #expect(opening.moves == [
            Move(type: MoveType("Juggle"), name: "5-ball cascade", note: "face the audience"),
            Move(type: MoveType("Dance"), name: "Spin", cue: 600_000),
        ])
        #expect(routine.parts[1].range == 1_464_000..<2_160_000)
        #expect(routine.parts[2].range == nil)
        #expect(routine.parts[2].length == 2_880_000)
        // Decoded once, shared by all three parts.
        #expect(Set(routine.parts.map(\.audio)) == [AudioReference("Juggling/song.wav")])
    }

    @Test func manifestWithoutPartsKeepsZeroConfigParts() throws {
        let root = try manifestStick("title = \"Renamed\"\ncountdown = 10\n", seconds: 0.5)
        let content = loader.check(root)
        #expect(content.problems.isEmpty)
        #expect(content.routines.first?.title == "Renamed")
        #expect(content.routines.first?.countdown == 10)
        #expect(content.routines.first?.parts.map(\.title) == ["song"])
    }

    @Test(arguments: [
        // (manifest, expected problem on Juggling/routine.toml)
        ("""
         title = "x"
         countdown = 5
         [[part]]
         file = "song.wav
         """, "line 4: TOML syntax error: "),
        ("""
         countdown = 7
         """, "line 1: countdown 7 is not one of 0, 3, 5, 8, 10, 15, 20"),
        ("""
         title = "x"
         tempo = 120
         """, "line 2: unknown key 'tempo'"),
        ("""
         title = 5
         """, "line 1: 'title' must be a string, found integer"),
        ("""
         [[part]]
         file = "missing.wav"
         """, "line 2: part 1: file \"missing.wav\" not found"),
        ("""
         [[part]]
         file = "../song.wav"
         """, "line 2: part 1: 'file' = \"../song.wav\" leaves the routine folder"),
        ("""
         [[part]]
         file = "/etc/passwd"
         """, "line 2: part 1: 'file' = \"/etc/passwd\" is an absolute path"),
        ("""
         [[part]]
         file = "song.wav"
         from = "0:10"
         to = "0:05"
         """, "line 4: part 1: 'from' 0:10 must be before 'to' 0:05"),
        ("""
         [[part]]
         file = "song.wav"
         to = "1:75"
         """, "line 3: part 1: 'to' = \"1:75\" is not a time"),
        ("""
         [[part]]
         file = "song.wav"
         to = "2:00"
         """, "line 3: part 1: 'to' 2:00 is past the end of \"song.wav\" (1:00)"),
        ("""
         [[part]]
         file = "song.wav"
         from = "0:10"
         to = "0:20"
         loop = { a = "0:05", b = "0:15" }
         """, "line 5: part 1: loop 0:05–0:15 lies outside the part (length 0:10"),
        ("""
         [[part]]
         file = "song.wav"
         loop = { a = "0:15", b = "0:05" }
         """, "line 3: the loop of part 1: b 0:05 must be after a 0:15"),
        ("""
         [[part]]
         file = "song.wav"
         to = "0:20"
         moves = [
           { type = "Dance", name = "Early", at = "0:05" },
           { type = "Dance", name = "Late", at = "0:25" },
         ]
         """, "line 6: part 1: move \"Late\" cue 0:25 is past the part end (0:20"),
    ])
    func badManifestIsReportedWithItsLine(toml: String, expected: String) throws {
        let root = try manifestStick(toml)
        let content = loader.check(root)
        // The problem is named; the folder's song still imports (the bad part left out,
        // each song a part when no part is good, a bad value of the whole ignored) unless
        // the manifest cannot be read at all.
        let unreadable = expected.contains("TOML syntax error")
        #expect(content.routines.count == (unreadable ? 0 : 1))
        let manifestProblems = content.problems.filter { $0.path == "Juggling/routine.toml" }
        #expect(manifestProblems.contains { $0.reason.hasPrefix(expected) }, "\(reasons(content))")
        let skipped = reasons(content).contains { $0.hasPrefix("Juggling: routine \"") && $0.contains("skipped") }
        #expect(skipped == unreadable)
    }

    @Test func syntaxErrorCarriesTheLineNumber() throws {
        let root = try manifestStick("title = \"ok\"\n\n\ncountdown = = 3\n")
        let problem = try #require(loader.check(root).problems.first)
        #expect(problem.line == 4)
        #expect(problem.description.hasPrefix("Juggling/routine.toml: line 4: TOML syntax error"))
    }

    @Test func aBadValueOfTheManifestIsNamedAndIgnored() throws {
        let root = try manifestStick("countdown = \"soon\"\n", seconds: 0.2)
        try TestFiles.mkdir(root + "/Tango")
        try TestFiles.tone(root + "/Tango/01 Tango.wav", seconds: 0.2)
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["Juggling", "Tango"])
        #expect(content.routines.first?.countdown == nil)
        #expect(reasons(content) == [
            "Juggling/routine.toml: line 1: countdown must be a whole number of seconds, found string",
        ])
    }

    @Test func anUnreadableManifestFailsOnlyItsRoutine() throws {
        let root = try manifestStick("[[part]\nfile = \"song.wav\"\n", seconds: 0.2)
        try TestFiles.mkdir(root + "/Tango")
        try TestFiles.tone(root + "/Tango/01 Tango.wav", seconds: 0.2)
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["Tango"])
        #expect(reasons(content).last == "Juggling: routine \"Juggling\" skipped: its routine.toml has 1 problem")
    }

    @Test func manifestPartWithBadAudioFailsOnlyThatPart() throws {
        let root = try manifestStick("""
            [[part]]
            file = "song.wav"
            to = "0:01"
            [[part]]
            file = "broken.wav"
            """, seconds: 2)
        try TestFiles.writeEmpty(root + "/Juggling/broken.wav")
        let content = loader.check(root)
        #expect(content.routines.first?.parts.map(\.title) == ["song"])
        #expect(reasons(content) == ["Juggling/broken.wav: empty file (0 bytes) (part 2 left out)"])
    }

    // MARK: Links

    @Test func linkLeavingTheStickIsRefused() throws {
        let (root, folder) = try stick()
        let outside = try temp.make("outside")
        try TestFiles.tone(outside + "/secret.wav", seconds: 0.1)
        try TestFiles.tone(folder + "/01 Inside.wav", seconds: 0.1)
        try FileManager.default.createSymbolicLink(atPath: folder + "/02 Outside.wav",
                                                   withDestinationPath: outside + "/secret.wav")
        try FileManager.default.createSymbolicLink(atPath: root + "/Elsewhere", withDestinationPath: outside)
        let content = loader.check(root)
        #expect(content.routines.map(\.title) == ["Salsa"])
        #expect(content.routines.first?.parts.map(\.title) == ["Inside"])
        let refused = content.problems.map(\.path)
        #expect(refused.contains("Salsa/02 Outside.wav"))
        #expect(refused.contains("Elsewhere"))
        #expect(content.problems.allSatisfy { $0.reason.contains("link leads outside the stick") })
    }

    @Test func manifestLinkLeavingTheRoutineFolderIsRefused() throws {
        let root = try manifestStick("[[part]]\nfile = \"other.wav\"\n", seconds: 0.2)
        try TestFiles.mkdir(root + "/Shared")
        try TestFiles.tone(root + "/Shared/x.wav", seconds: 0.2)
        try FileManager.default.createSymbolicLink(atPath: root + "/Juggling/other.wav",
                                                   withDestinationPath: root + "/Shared/x.wav")
        let content = loader.check(root)
        // The part is refused; each song of the folder is a part instead (a link inside the
        // stick is followed for a song, as without a manifest).
        #expect(content.routines.first { $0.title == "Juggling" }?.parts.map(\.title) == ["other", "song"])
        #expect(reasons(content).contains {
            $0.hasPrefix("Juggling/routine.toml: line 2: part 1: \"other.wav\" links outside the routine folder")
        })
    }

    @Test func linkInsideTheStickIsFollowed() throws {
        let (root, folder) = try stick()
        try TestFiles.mkdir(root + "/Library")
        try TestFiles.tone(root + "/Library/x.wav", seconds: 0.1)
        try FileManager.default.createSymbolicLink(atPath: folder + "/01 Linked.wav",
                                                   withDestinationPath: root + "/Library/x.wav")
        let content = loader.check(root)
        #expect(content.problems.isEmpty)
        let salsa = try #require(content.routines.first { $0.title == "Salsa" })
        #expect(salsa.parts.map(\.audio.id) == ["Library/x.wav"])
    }

    // MARK: Demo

    @Test func demoStickLoadsWithoutProblems() throws {
        let root = try temp.make("demo")
        try DemoStick.write(to: root)
        let content = loader.check(root)
        #expect(content.problems.isEmpty, "\(reasons(content))")
        #expect(content.routines.count >= 2)
        let warmUp = try #require(content.routines.first { $0.title == "Warm-up Session" })
        #expect(warmUp.parts.map(\.title) == ["Warm-up", "Groove", "Cool-down"])
        let jam = try #require(content.routines.first { $0.title == "Street Jam" })
        #expect(jam.countdown == 3)
        #expect(jam.parts.count == 3)
        #expect(Set(jam.parts.map(\.audio)).count == 1)
        #expect(jam.parts.contains { $0.savedLoop != nil })
        #expect(jam.parts.flatMap(\.moves).contains { $0.cue != nil })
        #expect(jam.parts.map(\.length) == [768_000, 1_536_000, 1_152_000])
        // Every file decodes to sound, not silence.
        let files = Set(content.routines.flatMap(\.parts).map(\.audio.id))
        var total = 0.0
        for file in files {
            let audio = try SniffingDecoder().decodeAll(root + "/" + file)
            #expect(audio.samples.contains { abs(Int($0)) > 10_000 }, "\(file)")
            total += audio.seconds
        }
        #expect(total > 120 && total < 200)
    }

    @Test func demoStickIsDeterministic() throws {
        let a = try temp.make("demo"), b = try temp.make("demo")
        try DemoStick.write(to: a)
        try DemoStick.write(to: b)
        for file in ["Warm-up Session/01 Warm-up.wav", "Street Jam/street-jam.wav"] {
            let x = try Data(contentsOf: URL(fileURLWithPath: a + "/" + file))
            let y = try Data(contentsOf: URL(fileURLWithPath: b + "/" + file))
            #expect(x == y)
        }
    }
}

@Suite(.tags(.integration)) struct StickCheckTests {
    let temp = TempDirs()

    @Test func checkReadsTheGoodFilesAndNamesTheCutOne() throws {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Salsa")
        try TestFiles.tone(root + "/Salsa/01 Intro.wav", seconds: 0.5)
        try TestFiles.tone(root + "/Salsa/02 Shines.flac", seconds: 0.25, format: .flac16)
        try TestFiles.tone(root + "/Salsa/03 Cut.wav", seconds: 1)
        try TestFiles.truncate(root + "/Salsa/03 Cut.wav", to: 1000)
        let checked = StickChecker().check(root)
        #expect(checked.routines.first?.parts.map(\.length) == [24000, 12000])
        #expect(checked.problems.map(\.path) == ["Salsa/03 Cut.wav"])
    }
}
