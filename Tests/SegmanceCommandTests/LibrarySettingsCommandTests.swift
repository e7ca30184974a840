import Foundation
import Testing

/// `segmance library settings` and `library resume`, run as the real binary on a real library.
@Suite(.tags(.integration)) struct LibrarySettingsCommandTests {
    let library: String

    init() throws {
        library = FileManager.default.temporaryDirectory
            .appendingPathComponent("segmance-settings-\(UUID().uuidString)").path
    }

    /// Runs `segmance library ARGS… --library L`; its output (stdout and stderr) and status.
    func run(_ args: [String]) throws -> (text: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: HelpTextTests.binary)
        process.arguments = ["library"] + args + ["--library", library]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    @Test func settingsAreShownChangedTogetherAndKeptBetweenRuns() throws {
        defer { try? FileManager.default.removeItem(atPath: library) }
        #expect(try run(["settings"]).text == "No settings saved in \(library) (the defaults apply).\n")
        let changed = try run(["settings", "volume=70", "countdown=5", "atPartEnd=next", "autoImport=1",
                               "countdownBeats=8", "loopSnap=eight", "turnBy=beats", "countVoice=spoken",
                               "stopFade=2000"])
        #expect(changed.status == 0)
        let expected = """
            countdown = 5
            countdownBeforeRepeat = 0
            atPartEnd = next
            volume = 70
            autoImport = 1
            loopPause = 0
            loopPasses = 0
            lightIdle = 0
            countdownBeats = 8
            loopSnap = eight
            turnBy = beats
            countVoice = spoken
            stopFade = 2000

            """
        #expect(changed.text == expected)
        #expect(try run(["settings"]).text == expected)
        #expect(try run(["settings", "--json"]).text.contains(#""volume" : "70""#))
    }

    @Test(arguments: [
        ("volume=101", "Error: volume=101: volume takes 0 to 100"),
        ("countdown=4", "Error: countdown=4: countdown takes 0, 3, 5, 8, 10, 15, 20"),
        ("atPartEnd=loop", "Error: atPartEnd=loop: atPartEnd takes stop or next"),
        ("speed=2", "Error: speed=2: not KEY=VALUE with a KEY among countdown, countdownBeforeRepeat, atPartEnd, volume, autoImport, loopPause, loopPasses, lightIdle, countdownBeats, loopSnap, turnBy, countVoice, stopFade"),
        ("stopFade=1500", "Error: stopFade=1500: stopFade takes 0, 500, 1000, 2000, 3000 (milliseconds)"),
        ("countdownBeats=6", "Error: countdownBeats=6: countdownBeats takes 0, 4, 8"),
        ("loopSnap=bar", "Error: loopSnap=bar: loopSnap takes off, beat, eight"),
        ("turnBy=bars", "Error: turnBy=bars: turnBy takes seconds, beats, eights"),
        ("countVoice=sung", "Error: countVoice=sung: countVoice takes ticks, spoken"),
    ])
    func aWrongAssignmentChangesNothingAndSaysWhatTheKeyTakes(assignment: String, error: String) throws {
        defer { try? FileManager.default.removeItem(atPath: library) }
        #expect(try run(["settings", "volume=40"]).status == 0)
        let refused = try run(["settings", "countdown=3", assignment])
        #expect(refused.status != 0)
        #expect(refused.text.hasPrefix(error + "\n"), "\(refused.text)")
        #expect(try run(["settings"]).text.contains("countdown = 0\n"))
    }

    @Test func aResumePointNeedsARoutineOfTheLibrary() throws {
        defer { try? FileManager.default.removeItem(atPath: library) }
        #expect(try run(["resume"]).text == "No resume point saved in \(library).\n")
        #expect(try run(["resume", "--json"]).text == "null\n")
        let refused = try run(["resume", "--routine", "Salsa", "--part", "1", "--frame", "0"])
        #expect(refused.status != 0)
        #expect(refused.text.hasPrefix("Error: no routine titled \"Salsa\" in \(library)\n"))
    }
}
