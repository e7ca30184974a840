import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import Testing
@testable import SegmanceTwin

/// Parts, loops and moves made on the box (docs/controls.md, *Making on the box*), end to
/// end: a real stick whose every frame says where it is, real WAV decoding, a real library on
/// disk, the scenario's making actions at the frame heard.
@Suite(.tags(.integration), .serialized) struct MadeOnTheBoxTwinTests {
    let temp = TempDirs()
    static let rate = 48_000

    /// "Counting": one 30 s file cut into "Intro" 0:00–0:20 and "Rest" 0:20–0:30.
    private func stick(intro: String = "0:20") throws -> String {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Counting")
        try TestFiles.write(TwinScenarioTests.source(frames: 30 * Self.rate), to: root + "/Counting/01 Count.wav")
        try TestFiles.writeText("""
            title = "Counting"

            [[part]]
            title = "Intro"
            file = "01 Count.wav"
            from = "0:00"
            to = "\(intro)"
            moves = [{ type = "Dance", name = "Walk in", at = "0:02" }, { type = "Spin", name = "Twirl", at = "0:15" }]

            [[part]]
            title = "Rest"
            file = "01 Count.wav"
            from = "\(intro)"
            to = "0:30"

            """, to: root + "/Counting/routine.toml")
        return root
    }

    /// Runs `text` from `library`, importing `stick` at 0 when given: no count-in, the part
    /// goes on into the next, loop marks and splits where they were heard (no snapping).
    private func run(_ text: String, library: Library, stick: String? = nil) throws
        -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.countdown = 0
        configuration.settings.atPartEnd = .next
        configuration.settings.loopSnap = .off
        var twin = TwinRun(configuration: configuration)
        twin.library = library
        var samples: [Int16] = []
        let output = try twin.run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return (samples, output)
    }

    private func frame(_ samples: [Int16], _ i: Int) -> Int {
        TwinScenarioTests.decode(samples[2 * i], samples[2 * i + 1])
    }

    /// The split at 0:12.3 of "Intro" lands on the frame heard at the press (PLAY's music
    /// starts at the period after its release; the output is heard 2,400 frames — 50 ms, a
    /// device's buffer — after it is rendered, so the render side is that far ahead),
    /// the music plays on in the second piece, and the two pieces played back to back are the
    /// original part sample for sample, the seam included.
    @Test func aSplitWhilePlayingLandsWhereItWasHeardAndThePiecesJoinSampleExactly() throws {
        let library = try Library(directory: try temp.make("library"))
        let start = TwinScenarioTests.boundary(after: 0.060)
        let latency = 2_400
        let press = 12.3 + Double(start + latency) / Double(Self.rate)   // 0:12.3 of the part is heard then
        let (samples, output) = try run("""
            0.0    latency \(latency)
            0.0    tap play
            \(String(format: "%.6f", press)) split
            14.0   part 1                # back to the first piece: plays from its start
            36.0   end
            """, library: library, stick: try stick())
        let parts = output.finalState.routine!.parts
        try #require(parts.map(\.title) == ["Intro", "Intro 2", "Rest"])
        let at = try #require(parts[0].range).upperBound
        // The frame heard at the press: the output frame of that instant, less the start and
        // the latency; in the WAV, the frame rendered that long before the press.
        let pressFrame = Int64((press * Double(Self.rate)).rounded(.down))
        let heard = pressFrame - Int64(start + latency)
        #expect(abs(at - heard) <= Int64(Self.rate / 1000), "split at \(at), heard \(heard)")
        #expect(abs(at - Int64(frame(samples, Int(pressFrame) - latency))) <= Int64(Self.rate / 1000))
        #expect(abs(at - 12_300 * Int64(Self.rate) / 1000) <= Int64(Self.rate / 1000))
        #expect(parts[1].range == at..<(20 * Int64(Self.rate)))
        #expect(parts[0].moves.map(\.name) == ["Walk in"] && parts[1].moves.map(\.name) == ["Twirl"])
        #expect(parts[1].moves.first?.cue == 15 * Int64(Self.rate) - at)
        // Between the split and the jump, the second piece played on where the music was.
        let mid = 13 * Self.rate
        #expect(abs(frame(samples, mid) - (mid - start)) < Self.rate / 10)
        // From the jump: piece 1 then piece 2 (then "Rest"), the source sample for sample.
        let from = try #require((14 * Self.rate..<15 * Self.rate).first { frame(samples, $0) == 1_000 }) - 1_000
        let ramp = 240
        var mismatches = 0
        for k in ramp..<(20 * Self.rate + Self.rate) where frame(samples, from + k) != k { mismatches += 1 }
        #expect(mismatches == 0, "\(mismatches) frames differ from the original part")
        // The seam of the two pieces is inside that stretch.
        #expect(Int(at) > ramp && Int(at) < 20 * Self.rate)
        // The library has the box's parts, the stick's stay beneath them.
        let stored = try #require(try library.storedRoutines().first)
        #expect(stored.partsMadeOnBox && stored.routine.parts == parts)
        #expect(stored.parts.map(\.part.title) == ["Intro", "Rest"])
    }

    @Test func aMergeUndoesTheSplit() throws {
        let directory = try temp.make("library")
        let stick = try stick()
        let original = try run("0.1 end", library: try Library(directory: directory), stick: stick)
            .output.finalState.routines
        let (_, output) = try run("""
            0.0  tap play
            5.0  split
            6.0  part 1
            7.0  merge
            8.0  end
            """, library: try Library(directory: directory))
        #expect(output.finalState.routines == original)
        // And as the library keeps it, after a restart.
        let again = try run("0.1 end", library: try Library(directory: directory)).output.finalState.routines
        #expect(again == original)
    }

    /// A loop named and a move added on the box are in the library: a restart of the
    /// simulator with the same `--library` has them.
    @Test func aNamedLoopAndAnAddedMoveSurviveARestart() throws {
        let directory = try temp.make("library")
        let start = Int64(TwinScenarioTests.boundary(after: 0.060))
        let first = try run("""
            0.0  tap play
            2.0  tap loop
            4.0  tap loop
            4.5  loop add Chorus
            5.0  move add Spin
            6.0  end
            """, library: try Library(directory: directory), stick: try stick())
        let loop = ABLoop(a: 2 * Int64(Self.rate) - start, b: 4 * Int64(Self.rate) - start)
        #expect(first.output.finalState.part?.loops == [NamedLoop(name: "Chorus", loop: loop)])
        let second = try run("0.5 end", library: try Library(directory: directory))
        let intro = try #require(second.output.finalState.routine?.parts.first)
        #expect(intro.loops == [NamedLoop(name: "Chorus", loop: loop)])
        #expect(intro.savedLoop == loop)
        // The move added at the frame heard inside the loop (at 5 s the loop had wrapped).
        let added = try #require(intro.moves.first { $0.type.name == "Spin" && $0.name == "Spin" })
        #expect(intro.moves.map(\.name) == ["Walk in", "Spin", "Twirl"])
        #expect(loop.a..<loop.b ~= added.cue!)
    }

    /// The unchanged stick imported again keeps everything made on the box: the split, the
    /// named loop, the added move.
    @Test func aReimportOfTheUnchangedStickKeepsWhatWasMadeOnTheBox() throws {
        let directory = try temp.make("library")
        let stick = try stick()
        let first = try run("""
            0.0  tap play
            2.0  tap loop
            4.0  tap loop
            4.5  loop add Eight 1
            5.0  move add Lift
            6.0  tap loop
            7.0  split
            8.0  end
            """, library: try Library(directory: directory), stick: stick)
        let made = first.output.finalState.routines
        #expect(made.first?.parts.count == 3)
        let second = try run("1.0 end", library: try Library(directory: directory), stick: stick)
        #expect(second.output.log.contains("import: Counting: unchanged"), "\(second.output.log)")
        #expect(second.output.finalState.routines == made)
        #expect(second.output.finalState.routines.first?.parts.first?.loops.map(\.name) == ["Eight 1"])
        let kept = try #require(second.output.finalState.routines.first?.parts)
        #expect(kept.flatMap(\.moves).filter { $0.name == "Lift" }.count == 1, "\(kept.map(\.moves))")
    }

    /// The stick changed under parts made on the box: the stick's new parts play under the
    /// title, the box's are kept whole as "Counting (box)".
    @Test func aChangedStickKeepsTheBoxsPartsAsARoutineOfTheirOwn() throws {
        let directory = try temp.make("library")
        let first = try run("0.0 tap play\n3.0 split\n4.0 move add Jump\n5.0 end",
                            library: try Library(directory: directory), stick: try stick())
        let made = try #require(first.output.finalState.routine)
        let second = try run("1.0 end", library: try Library(directory: directory), stick: try stick(intro: "0:18"))
        let routines = second.output.finalState.routines
        try #require(routines.map(\.title) == ["Counting", "Counting (box)"])
        #expect(routines[0].parts.map(\.title) == ["Intro", "Rest"])
        #expect(routines[0].parts[0].range == 0..<(18 * Int64(Self.rate)))
        #expect(routines[1].parts == made.parts)
        #expect(try Library(directory: directory).verify() == [])
    }
}
