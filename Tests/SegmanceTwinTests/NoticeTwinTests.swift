import Testing
import SegmanceCore
import SegmanceScreen
import SndFile
import SegmanceAppliance
@testable import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

/// Issue 25 in the twin: the problems view of a stick with typos, notices that never hide
/// what a control changes, the A–B loop's times shown and nudged (heard in the WAV).
@Suite(.tags(.integration), .serialized) struct NoticeTwinTests {
    static let rate = TwinScenarioTests.rate

    /// The typo stick: "Counting" plays but has a file that is not audio; "Salsa" has a
    /// misspelt key in its routine.toml, so it is skipped.
    static func typoStick() throws -> String {
        let root = try TwinScenarioTests.makeStick(extra: [("02 Brokn.mp3", Array("this is not audio".utf8))])
        mkdir(root + "/Salsa", 0o755)
        let file = try SoundFile(writingTo: root + "/Salsa/01 Basic.wav", format: .wavPCM16, sampleRate: rate,
                                 channels: 2)
        try file.write(TwinScenarioTests.source(frames: 2 * rate))
        try file.close()
        let f = fopen(root + "/Salsa/routine.toml", "wb")!
        fputs("tilte = \"Salsa Basics\"\n", f)
        fclose(f)
        return root
    }

    /// The rows of a frame-log line ("    1.000 |row 0|row 1|"), and its time.
    static func rows(_ line: String) -> (time: Double, rows: [String]) {
        let fields = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
        let time = Double(fields[0].trimmingCharacters(in: .whitespaces)) ?? -1
        return (time, Array(fields.dropFirst().dropLast()))
    }

    @Test func theProblemsViewShowsEveryWordOfEachProblemOfTheTypoStick() throws {
        let stick = try Self.typoStick()
        // The push opens the menu on Problems (not read yet), the next opens the view, then
        // a detent a page, more than there are.
        let turns = (0..<40).map { String(format: "%.1f turn +1", 2.0 + Double($0) * 0.3) }
        let text = (["1.0 tap select", "1.5 tap select"] + turns + ["15.0 end"]).joined(separator: "\n")
        let (_, output) = try TwinScenarioTests.run(text, stick: stick)
        let problems = output.finalState.problems
        // The typo and the broken song; the routine imports its good part (nothing refused).
        #expect(problems.count == 2, "\(problems)")
        #expect(problems.contains { $0.file.hasSuffix("02 Brokn.mp3") })
        #expect(problems.contains { $0.file.hasSuffix("routine.toml") && $0.reason.contains("tilte") })
        // The frames from the view's first page on: each a page, drawn once (nothing scrolls).
        let view = output.frames.lines.map(Self.rows).filter { $0.time >= 1.5 }
        let shown = view.map { $0.rows.joined(separator: " ") }
        #expect(view.allSatisfy { $0.rows.count == 2 && $0.rows.allSatisfy { $0.count == 16 } })
        #expect(shown.count == ProblemsRules.pages(problems, DisplaySize(columns: 16, rows: 2)).count, "\(shown)")
        // Every word of every problem, file first, in order.
        let all = shown.joined().filter { $0 != " " }
        for (i, problem) in problems.enumerated() {
            let whole = "\(i + 1)of\(problems.count):" + (problem.file + problem.reason).filter { $0 != " " }
            #expect(all.contains(whole), "\(problem) in \(shown)")
        }
    }

    @Test func afterThePushNoNoticeCoversTheMenuBeingEdited() throws {
        let stick = try TwinScenarioTests.makeStick()
        let scenario = "1.0 tap select\n1.5 turn +3\n2.0 tap select\n9.0 end"
        let (_, output) = try TwinScenarioTests.run(scenario, stick: stick)
        let lines = output.frames.lines.map(Self.rows)
        #expect(lines.contains { $0.time < 1.0 && $0.rows[0].hasPrefix("Stick found") })
        // From the push on: the menu in plain view, the turns moving in it, the entry edited.
        let after = lines.filter { $0.time >= 1.0 }
        let notices = ["Stick found", "Counting", "Import done"]
        #expect(!after.contains { line in notices.contains { line.rows[0].hasPrefix($0) } }, "\(after)")
        #expect(after.first?.rows[0].hasPrefix(">Routines") == true, "\(after.first.map { "\($0)" } ?? "")")
        #expect(after.contains { $0.time >= 1.5 && $0.time < 2.0 && $0.rows.contains { $0.hasPrefix(">Part end") } })
        #expect(after.last?.rows == ["Part end        ", "    < Stop >    "], "\(after.last.map { "\($0)" } ?? "")")
    }

    @Test func playDuringTheRoutinesTitlePlaysAtOnceInPlainView() throws {
        let stick = try Self.typoStick()
        let (out, output) = try TwinScenarioTests.run("3.5 tap play\n6.0 end", stick: stick)
        let lines = output.frames.lines.map(Self.rows)
        // The title is up when PLAY is pressed; once let go, the part plays, in view.
        #expect(lines.last { $0.time <= 3.5 }?.rows[0].hasPrefix("Counting") == true, "\(lines)")
        let next = try #require(lines.first { $0.time > 3.5 })
        #expect(next.time < 3.6 && next.rows[0].hasPrefix("\u{25B6} 1/1 Count"), "\(next)")
        let start = TwinScenarioTests.boundary(after: 3.56)
        #expect(out[(start + 480) * 2..<(start + 4_800) * 2].contains { $0 != 0 })
    }

    @Test func markingShowsTheTimesAndANudgeOfBIsHeardOnTheNextPass() throws {
        let stick = try BeatTwinTests.makeStick()
        let entry = Menu.Item.allCases.firstIndex(of: .abLoop)!
        let text = """
            0.0 tap play
            2.1 tap loop
            4.4 tap loop
            5.0 tap select
            5.5 turn +\(entry)
            9.0 tap select
            9.6 tap select
            10.2 turn +1
            10.8 tap select
            11.4 hold select 0.8
            20.0 end
            """
        let (out, output) = try BeatTwinTests.run(text, stick: stick) { $0.countdown = 0 }
        guard case .ab(let loop) = output.finalState.loop else {
            Issue.record("no A-B loop: \(output.finalState.loop)")
            return
        }
        let beat = BeatTwinTests.beat
        let a = Int(loop.a), b = Int(loop.b), oldB = b - beat
        #expect(BeatTwinTests.isBeat(a) && BeatTwinTests.isBeat(b))
        #expect(output.finalState.routines[0].parts[0].savedLoop == loop)
        // The times: A alone after the first mark, both after the second.
        func tenths(_ f: Int) -> String { TimeText.tenths(FramePosition(f), sampleRate: Int64(Self.rate)) }
        let lines = output.frames.lines.map(Self.rows)
        #expect(lines.contains { $0.time >= 2.1 && $0.time < 4.4 && $0.rows[1].hasPrefix("A \(tenths(a))") },
                "\(lines)")
        #expect(lines.contains { $0.time >= 4.4 && $0.rows[1] == "A\(tenths(a))  B\(tenths(oldB))" }, "\(lines)")
        // The page shows B nudged when the detent is taken (its edges end a moment after 10.2 s).
        let nudged = try #require(lines.first { $0.rows.contains { $0.hasPrefix(">B \(tenths(b))") } }, "\(lines)")
        // In the WAV: seams at the old B before the nudge, at the new B from the next pass on.
        let crossfade = 240
        func seams(at end: Int, from: Int, to: Int) -> [Int] {
            (from..<to).filter { j in
                BeatTwinTests.source(out, j) == end - 1
                    && BeatTwinTests.source(out, j + 1 + crossfade + 100) == a + crossfade + 100
            }
        }
        let nudge = TwinScenarioTests.boundary(after: nudged.time)
        let total = out.count / 2 - crossfade - 200
        #expect(!seams(at: oldB, from: TwinScenarioTests.boundary(after: 4.5), to: nudge).isEmpty)
        #expect(seams(at: oldB, from: nudge, to: total).isEmpty)
        let later = seams(at: b, from: nudge, to: total)
        #expect(later.count >= 2, "\(later)")
        // The next pass: the first seam after the nudge is the new B's, within a loop's length.
        #expect((later.first ?? .max) - nudge <= b - a, "\(later)")
    }
}
