import Foundation
import SegmanceLibrary
import SegmanceTestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `segmance` binary on sticks that crashed it before (`[\` and a fuzzed manifest
/// aborted it in toml++, a 56 MB manifest took over a minute and 280 MB, a tree 100 folders
/// deep) and on a routine with three problems: it exits with status 1 and names every
/// problem, never dies of a signal, and imports what is good.
@Suite(.tags(.integration), .serialized) struct HostileStickCommandTests {
    struct CheckOutput: Decodable {
        struct Problem: Decodable, Equatable {
            var path: String
            var line: Int?
            var reason: String
        }
        struct Routine: Decodable {
            var title: String
        }
        var routines: [Routine]
        var problems: [Problem]
    }

    /// Runs the binary under GNU time; its exit status (128 + signal when killed) and peak
    /// memory. GNU time forks it from its own small process: a child spawned straight from
    /// this test process (vfork) would report this process's high-water mark as its own.
    private func run(_ arguments: [String], stdout: String, stderr: String) throws -> (status: Int32, maxRSSKiB: Int) {
        let rss = stdout + ".rss"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, stdout, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, stderr, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = cStrings(["time", "-f", "%M", "-o", rss, RunCommandTests.binary] + arguments)
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, Self.time, &actions, nil, argv, environ)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EIO) }
        let status = waitFor(pid)
        let peak = try text(rss).split(separator: "\n").last.flatMap { Int($0) }
        return (status, peak ?? Int.max)
    }

    /// GNU time (Debian package `time`, in deploy/install-deps.sh).
    static let time = "/usr/bin/time"

    /// The binary's peak memory stays that of a small stick. Not judged under a sanitizer:
    /// AddressSanitizer's shadow memory and quarantine roughly double it (120 MB measured).
    private func expectSmallPeak(_ maxRSS: Int) {
        guard !Sanitizer.active else {
            print("peak RSS \(maxRSS) KiB not judged: a sanitizer's build")
            return
        }
        #expect(maxRSS < 64 * 1024, "peak RSS \(maxRSS) KiB")
    }

    private func text(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    @Test func stickCheckNamesEveryHostileManifestAndKeepsTheGoodRoutine() throws {
        let folders = TempDirs()
        let dir = try folders.make("hostile")
        try HostileSticks.write(to: dir + "/stick")
        let (status, maxRSS) = try run(["stick", "check", dir + "/stick", "--json"],
                                       stdout: dir + "/out.json", stderr: dir + "/err.txt")
        let err = try text(dir + "/err.txt")
        #expect(status == 1, "stderr: \(err)")
        let output = try JSONDecoder().decode(CheckOutput.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json")))
        #expect(output.routines.map(\.title) == ["Good"])
        #expect(output.problems.map { "\($0.path): \($0.reason)" }
                == HostileSticks.expectedProblems.map { "\($0.path): \($0.reason)" })
        #expect(output.problems.first?.line == 1)
        print("segmance stick check on the hostile stick: exit \(status), peak RSS \(maxRSS) KiB")
        // The 56 MB manifest is refused from its size, not read: memory stays that of a
        // small stick (reading it took over 280 MB before).
        expectSmallPeak(maxRSS)
    }

    @Test func importBringsInTheGoodRoutineAndNamesTheRest() throws {
        let folders = TempDirs()
        let dir = try folders.make("hostile")
        try HostileSticks.write(to: dir + "/stick")
        let (status, maxRSS) = try run(["import", dir + "/stick", "--library", dir + "/library"],
                                       stdout: dir + "/out.txt", stderr: dir + "/err.txt")
        let out = try text(dir + "/out.txt"), err = try text(dir + "/err.txt")
        #expect(status == 1, "stderr: \(err)")
        #expect(out.contains("Good: added"), "\(out)")
        for (path, reason) in HostileSticks.expectedProblems {
            #expect(err.contains("problem: \(path): \(reason)\n"), "\(path) missing in: \(err)")
        }
        expectSmallPeak(maxRSS)
        let library = try Library(directory: dir + "/library")
        #expect(try library.routines().map(\.title) == ["Good"])
    }

    /// A reversed cut, a cut past the end of the audio and a loop outside its part: all three.
    @Test func stickCheckListsThreeIndependentProblems() throws {
        let folders = TempDirs()
        let dir = try folders.make("three")
        try TestFiles.mkdir(dir + "/stick/Juggling")
        try TestFiles.tone(dir + "/stick/Juggling/song.wav", seconds: 60, rate: 8000)
        try TestFiles.writeText(HostileSticks.threeProblemsManifest, to: dir + "/stick/Juggling/routine.toml")
        let expected = [
            CheckOutput.Problem(path: "Juggling/routine.toml", line: 5,
                                reason: "line 5: part 1: 'from' 0:20 must be before 'to' 0:10"),
            CheckOutput.Problem(path: "Juggling/routine.toml", line: 10,
                                reason: "line 10: part 2: 'to' 1:30 is past the end of \"song.wav\" (1:00)"),
            CheckOutput.Problem(path: "Juggling/routine.toml", line: 17,
                                reason: "line 17: part 3: loop 0:05–0:15 lies outside the part (length 0:10; loop times are part-relative)"),
            CheckOutput.Problem(path: "Juggling", line: nil,
                                reason: "no part of its routine.toml can be used: each song is a part"),
        ]

        #expect(try run(["stick", "check", dir + "/stick", "--json"], stdout: dir + "/out.json", stderr: dir + "/err.txt").status == 1)
        let output = try JSONDecoder().decode(CheckOutput.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/out.json")))
        #expect(output.routines.map(\.title) == ["Juggling"])
        #expect(output.problems == expected)

        #expect(try run(["stick", "check", dir + "/stick"], stdout: dir + "/out.txt", stderr: dir + "/err.txt").status == 1)
        let out = try text(dir + "/out.txt")
        #expect(out.hasPrefix("Stick \(dir)/stick: 1 routine to import, 4 problems\n"), "\(out)")
        for problem in expected { #expect(out.contains("  \(problem.path): \(problem.reason)\n"), "\(out)") }
    }
}
