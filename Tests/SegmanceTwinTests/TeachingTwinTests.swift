import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
@testable import SegmanceTwin
import Testing

/// Issue 16 in the twin, end to end on 16×2 and 20×4: the scenario's edges through the
/// controls, the reducer, the render function and a real library; facts checked in the
/// frame log, the output audio and what the library kept.
@Suite(.tags(.integration), .serialized) struct TeachingTwinTests {
    let temp = TempDirs()
    static let rate = 48_000
    typealias T = TwinScenarioTests

    /// A stick with "Counting": one part of `seconds` whose frames say where they are.
    private func countingStick(seconds: Int = 30) throws -> String {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Counting")
        try TestFiles.write(T.source(frames: seconds * Self.rate), to: root + "/Counting/01 Count.wav")
        return root
    }

    private func demoStick() throws -> String {
        let root = try temp.make("demo")
        try DemoStick.write(to: root)
        return root
    }

    private func run(_ text: String, stick: String?, size: (Int, Int) = (16, 2), library: Library? = nil,
                     _ settings: (inout Settings) -> Void = { _ in }) throws -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        settings(&configuration.settings)
        configuration.columns = size.0
        configuration.rows = size.1
        var twin = TwinRun(configuration: configuration)
        twin.library = library
        var samples: [Int16] = []
        let output = try twin.run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return (samples, output)
    }

    /// The frame log's screens (rows) with their times in ms.
    private func screens(_ output: TwinRun.Output) -> [(ms: Int, rows: [String])] {
        output.frames.lines.map { line in
            let parts = line.split(separator: "|", omittingEmptySubsequences: false).map(String.init)
            let stamp = parts[0].trimmingCharacters(in: .whitespaces).split(separator: ".")
            return (Int(stamp[0])! * 1000 + Int(stamp[1])!, Array(parts[1..<parts.count - 1]))
        }
    }

    // MARK: Big digits

    @Test(arguments: [(16, 2), (20, 4)])
    func theCountInIsInBigDigits(columns: Int, rows: Int) throws {
        let (_, output) = try run("0.0 tap play\n4.0 end", stick: try countingStick(), size: (columns, rows)) {
            $0.countdown = 3
        }
        let shown = screens(output).map(\.rows)
        let top = rows == 4 ? 1 : 0
        for (digit, cells) in [(3, ("≣≣█", "▄▄█")), (2, ("≣≣█", "█▄▄")), (1, ("▀█ ", "▄█▄"))] {
            #expect(shown.contains { $0[top].hasSuffix(cells.0) && $0[top].hasPrefix("Ready in") && $0[top + 1].hasSuffix(cells.1) },
                    "no big \(digit) in \(shown)")
        }
        #expect(shown.last?[top].hasPrefix("▶ 1/1 Count") == true)
    }

    // MARK: Which routine

    @Test func aPartChangeAndTheLongPushShowTheRoutinesTitleOn16x2() throws {
        let (_, output) = try run("""
            3.0  tap next
            8.0  hold select 0.8
            9.0  tap select
            9.5  tap select
            10.5 turn +1
            12.0 end
            """, stick: try demoStick())
        let log = output.frames.lines
        // NEXT: part 2 with the routine's title for 3 s, then its clock.
        #expect(log.contains { $0.contains("|■ 2/3 Groove  ⒶⒷ|Street Jam      |") })
        let title = try #require(log.firstIndex { $0.contains("|Street Jam      |") && $0.contains("Groove") })
        // Groove's saved A–B loop is on: its pass beside the whole clock (Groove has a beat,
        // detected at import; the pass takes the place in the eights' room on 16 columns).
        #expect(log[title + 1].contains("|■ 2/3 Groove  ⒶⒷ|0:08/0:32    ⟲x1|"), "\(log[title + 1])")
        // The long push (0.6 s into the hold) shows it again.
        #expect(log.contains { $0.hasPrefix("    8.6") && $0.contains("|Street Jam      |") })
        // The routine list, with the place of the routine under the cursor.
        #expect(log.contains { $0.contains("|>Street Jam  1/2|") })
        #expect(log.contains { $0.contains("|>") && $0.contains("-up Se") && $0.hasSuffix(" 2/2|") })
    }

    // MARK: Moves

    @Test(arguments: [(16, 2), (20, 4)])
    func theEncoderWalksTheMovesAndAPushPlaysFromTheCue(columns: Int, rows: Int) throws {
        let (_, output) = try run("""
            1.0  tap next
            2.0  double select
            3.0  turn +2
            3.5  turn -1
            4.0  tap select
            9.0  end
            """, stick: try demoStick(), size: (columns, rows))
        let shown = screens(output).map { $0.rows.joined(separator: "|") }
        // The last move, its cue outside Groove's saved loop (0:08-0:16), then back one.
        #expect(shown.contains { $0.hasPrefix("■ #3 Spin out") && $0.contains("0:24 Transition") }, "\(shown)")
        #expect(shown.contains { $0.hasPrefix("■ #2 ") && $0.contains("ball") }, "\(shown)")
        // The push: counted in (the demo's 3 s), then playing from the cue at 0:08.
        #expect(shown.contains { $0.contains("Ready in") })
        let state = output.finalState
        #expect(state.transport == .playing)
        #expect(state.partIndex == 1)
        #expect(state.view == .moves)
        // 4.36 s push (after the double-press window), 3 s count-in: ~1.6 s played from 0:08.
        #expect(state.position > T.rate * 9 && state.position < T.rate * 10, "\(state.position)")
        #expect(state.moveCursor == nil, "the view follows the cues again")
    }

    // MARK: Volume

    @Test(arguments: [(16, 2), (20, 4)])
    func playHeldAndTheEncoderTurnedChangesTheVolumeShowsTheBarAndSavesIt(columns: Int, rows: Int) throws {
        let library = try Library(directory: try temp.make("library"))
        let (samples, output) = try run("""
            0.0  tap play
            2.0  chord play -4
            5.0  end
            """, stick: try countingStick(), size: (columns, rows), library: library)
        let shown = screens(output).map { $0.rows.joined(separator: "|") }
        #expect(shown.contains { $0.contains("Volume") && $0.contains("80%") })
        #expect(shown.contains { $0.contains(columns == 16 ? "|████████████▌   " : "|████████████████    ") })
        #expect(output.finalState.transport == .playing, "the chord neither paused nor stopped")
        #expect(output.finalState.settings.volume == 80)
        #expect(try library.settings()?.volume == 80, "saved when the bar went")
        // The audio: the source itself before, at (0.8)² = 0.64 once the volume ramp is over.
        let start = T.boundary(after: 0.060)
        let source = T.source(frames: 5 * T.rate)
        for k in stride(from: T.rate, to: T.rate + 2000, by: 50) { #expect(samples[k * 2] == source[(k - start) * 2]) }
        for k in stride(from: T.rate * 4, to: T.rate * 4 + 2000, by: 50) where abs(Int(source[(k - start) * 2])) > 2000 {
            #expect(abs(Double(samples[k * 2]) / Double(source[(k - start) * 2]) - 0.64) < 0.01)
        }
    }

    // MARK: Loops that count

    @Test(arguments: [(16, 2), (20, 4)])
    func aLoopPausesToTheFrameCountsItsPassesAndStopsAfterThree(columns: Int, rows: Int) throws {
        let (out, output) = try run("""
            0.0  tap play
            1.0  tap loop
            2.0  tap loop
            12.0 end
            """, stick: try countingStick(), size: (columns, rows)) {
            $0.loopPause = 2
            $0.loopPasses = 3
        }
        guard case .ab(let loop) = output.finalState.loop else {
            Issue.record("no A–B loop: \(output.finalState.loop)")
            return
        }
        let a = Int(loop.a), b = Int(loop.b), ramp = 240, pause = 2 * Self.rate
        // Each arrival at B: the frame B−1 sounds, then silence of exactly the pause (after
        // the ramp-out), then A's audio ramping in. B is the frame heard at the press (2.0 s);
        // the loop is set at the release, the play head already past B: the first pass ends
        // there, at once.
        let marked = T.boundary(after: 2.060)
        var seams: [Int] = [marked - 1]
        for j in marked..<(out.count / 2) where T.decode(out[2 * j], out[2 * j + 1]) == b - 1 { seams.append(j) }
        #expect(seams.count == 3, "three passes reach B")
        for seam in seams.dropLast() {
            let wrap = seam + 1
            #expect(out[(wrap + ramp) * 2..<(wrap + pause) * 2].allSatisfy { $0 == 0 }, "silence during the pause")
            let back = wrap + pause + ramp
            #expect(T.decode(out[2 * back], out[2 * back + 1]) == a + ramp, "A's audio exactly after the pause")
        }
        // After the third pass: silence to the end, stopped back at A.
        let last = seams.last! + 1
        #expect(out[(last + ramp) * 2..<out.count].allSatisfy { $0 == 0 })
        #expect(output.finalState.transport == .stopped)
        #expect(output.finalState.position == loop.a)
        let shown = screens(output).map { $0.rows.joined(separator: "|") }
        for counter in ["⟲1/3", "⟲2/3", "⟲3/3"] { #expect(shown.contains { $0.contains(counter) }, "\(counter)") }
        #expect(shown.last?.hasPrefix(rows == 4 ? "Counting" : "■ 1/1 Count") == true)
    }

    @Test func theLoopSettingsAreSetInTheMenuAndKept() throws {
        let library = try Library(directory: try temp.make("library"))
        // Menu: down to "Loop pause" (7th item), +2 (2 s); "Stop after" +1 (2 passes); "Dim after" +1 (30 s).
        _ = try run("""
            0.5  tap select
            1.0  turn +6
            2.0  tap select
            2.5  turn +2
            3.0  tap select
            3.5  turn +1
            4.0  tap select
            4.5  turn +1
            5.0  tap select
            5.5  turn +1
            6.0  tap select
            6.5  turn +1
            7.0  tap select
            8.0  end
            """, stick: try countingStick(), library: library)
        let saved = try #require(try library.settings())
        #expect(saved.loopPause == 2)
        #expect(saved.loopPasses == 2)
        #expect(saved.lightIdle == 30)
    }

    // MARK: Light

    @Test(arguments: [(16, 2), (20, 4)])
    func theLightDimsAfterTheIdleTimeAndAControlWakesIt(columns: Int, rows: Int) throws {
        let (_, output) = try run("0.0 tap play\n35.0 tap play\n37.0 end", stick: try countingStick(seconds: 40),
                                  size: (columns, rows)) { $0.lightIdle = 30 }
        let log = output.frames.lines
        // The last control was PLAY's release at 0.060: dark from 30.060 on.
        let dark = try #require(log.firstIndex { $0.hasSuffix(" dark") })
        #expect(log[dark].hasPrefix("   30.06"), "\(log[dark])")
        // PLAY at 35 (released 35.060) pauses and lights it again.
        let lit = try #require(log[dark...].firstIndex { !$0.hasSuffix(" dark") })
        #expect(log[lit].hasPrefix("   35.06") && log[lit].contains("‖"), "\(log[lit])")
    }

    // MARK: The place survives a power cut

    @Test func whilePlayingThePlaceIsWrittenEveryThirtySecondsOfMusic() throws {
        let library = try Library(directory: try temp.make("library"))
        // Cut at 45 s of playing: nothing was paused, so only the periodic write kept the place.
        _ = try run("0.0 tap play\n45.0 end", stick: try countingStick(seconds: 60), library: library)
        let resume = try #require(try library.snapshot().resume)
        let played = Int64(45 * Self.rate - Self.rate * 6 / 100)
        #expect(resume.position >= 30 * Int64(Self.rate) && resume.position < 31 * Int64(Self.rate), "\(resume.position)")
        #expect(played - resume.position < 30 * Int64(Self.rate))
    }
}
