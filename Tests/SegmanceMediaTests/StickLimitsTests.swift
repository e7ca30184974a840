import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import Testing

/// The scan of a stick is bounded: each bound hit is a problem naming the folder and the
/// bound, and what lies within the bounds still imports.
@Suite(.tags(.integration)) struct StickLimitsTests {
    let temp = TempDirs()

    private func descriptions(_ content: StickContent) -> [String] { content.problems.map(\.description) }

    @Test func aTreeAHundredFoldersDeepIsSearchedFourLevels() throws {
        let root = try temp.make("deep")
        var path = root
        for level in 1...100 {
            path += "/d\(level)"
            try TestFiles.mkdir(path)
            if level == 3 || level == 60 { try TestFiles.tone(path + "/song.wav", seconds: 0.1) }
        }
        let content = StickChecker().check(root)
        #expect(content.routines.map(\.title) == ["d3"])
        #expect(descriptions(content) == [
            "d1/d2/d3/d4: 1 folder in it is not searched: routines are looked for at most 4 folder levels below the stick",
        ])
    }

    @Test func aFolderWithMoreEntriesThanTheBoundIsReadUpToIt() throws {
        let root = try temp.make("wide")
        try TestFiles.mkdir(root + "/Photos")
        for i in 0..<30 { try TestFiles.writeText("jpeg", to: root + "/Photos/IMG_\(i).jpg") }
        try TestFiles.mkdir(root + "/Salsa")
        try TestFiles.tone(root + "/Salsa/song.wav", seconds: 0.1)
        let content = StickChecker(limits: StickLimits(maxEntriesPerFolder: 10)).check(root)
        #expect(content.routines.map(\.title) == ["Salsa"])
        #expect(descriptions(content) == [
            "Photos: the folder holds more than 10 files and folders; only 10 are looked at",
        ])
    }

    @Test func theWholeStickIsReadUpToItsBound() throws {
        let root = try temp.make("many")
        for name in ["A", "B", "C"] {
            try TestFiles.mkdir(root + "/" + name)
            for i in 0..<4 { try TestFiles.tone(root + "/\(name)/\(i).wav", seconds: 0.05) }
        }
        // 3 folders and 12 files: a bound of 10 names stops inside the second folder.
        let content = StickChecker(limits: StickLimits(maxEntries: 10)).check(root)
        #expect(content.routines.map(\.title) == ["A", "B"])
        #expect(content.routines.map(\.parts.count) == [4, 3])
        #expect(descriptions(content) == [".: the stick holds more than 10 files and folders; the rest is not searched"])
    }

    @Test func routinesPerStickAreBounded() throws {
        let root = try temp.make("routines")
        for name in ["A", "B", "C", "D"] {
            try TestFiles.mkdir(root + "/" + name)
            try TestFiles.tone(root + "/\(name)/song.wav", seconds: 0.05)
        }
        let content = StickChecker(limits: StickLimits(maxRoutines: 2)).check(root)
        #expect(content.routines.map(\.title) == ["A", "B"])
        #expect(descriptions(content) == ["C: more than 2 routine folders on the stick; this one and the rest are not searched"])
    }

    @Test func audioFilesPerRoutineAreBounded() throws {
        let root = try temp.make("parts")
        try TestFiles.mkdir(root + "/Salsa")
        for i in 1...5 { try TestFiles.tone(root + "/Salsa/\(i) Part.wav", seconds: 0.05) }
        let content = StickChecker(limits: StickLimits(maxAudioFiles: 3)).check(root)
        #expect(content.routines.first?.parts.map(\.audio.id) == ["Salsa/1 Part.wav", "Salsa/2 Part.wav", "Salsa/3 Part.wav"])
        #expect(descriptions(content) == [
            "Salsa: the folder holds 5 audio files; a routine takes at most 3: the first 3 in name order are its parts",
        ])
    }

    @Test func longNamesAreSkipped() throws {
        let root = try temp.make("names")
        try TestFiles.mkdir(root + "/Salsa")
        try TestFiles.tone(root + "/Salsa/Intro.wav", seconds: 0.05)
        let long = String(repeating: "é", count: 50) + ".wav"
        try TestFiles.tone(root + "/Salsa/" + long, seconds: 0.05)
        let content = StickChecker(limits: StickLimits(maxNameLength: 40)).check(root)
        #expect(content.routines.first?.parts.map(\.title) == ["Intro"])
        #expect(descriptions(content) == [
            "Salsa/" + String(repeating: "é", count: 40) + "…: the name is longer than 40 characters; skipped",
        ])
    }

    @Test func theDefaultsAreStated() {
        #expect(StickLimits() == StickLimits(maxDepth: 4, maxEntriesPerFolder: 5_000, maxEntries: 50_000,
                                             maxRoutines: 1_000, maxAudioFiles: 250, maxNameLength: 255))
    }
}
