import BoxSupport
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
import SegmanceTwin
import StickTransfer
import Testing

/// The daemon's control log placed in the real twin: each input acts exactly where the
/// daemon's did (the A and B the daemon marked, the place it paused), and the twin's audio
/// and frames are what the system tests compare the box against.
@Suite(.tags(.integration), .serialized) struct TwinPlacementTests {
    /// A rehearsal as the daemon would log it: play (3 s countdown), A heard at 2 s, B at
    /// 4 s, each seen by the daemon 120 ms later (80 ms held, 40 ms of the device's buffer:
    /// the loop wraps to A as far past it), next part 1 s later, one detent forward heard
    /// at 1 s (seen 2,048 frames later), pause.
    static func records(a: Int64 = 96_000) -> [ControlRecord] {
        [ControlRecord(action: "press play", part: 1, frame: 0, transport: "stopped"),
         ControlRecord(action: "press loop", part: 1, frame: a, transport: "playing", seen: a + 5_760),
         ControlRecord(action: "press loop", part: 1, frame: 192_000, transport: "playing", seen: 197_760),
         ControlRecord(action: "press next", part: 1, frame: a + 48_000, transport: "playing"),
         ControlRecord(action: "turn +1", part: 2, frame: 48_000, transport: "playing", seen: 50_048),
         ControlRecord(action: "press play", part: 2, frame: 144_000, transport: "playing")]
    }

    final class Rig {
        let temp = TempDirs()
        let stick: String

        init() throws {
            stick = try temp.make("box-stick")
            try BoxStick.write([BoxStick.rehearsal], to: stick)
        }

        /// Runs the twin on `scenario` from a library holding the rehearsal.
        func run(_ scenario: String) throws -> (output: TwinRun.Output, audio: [Int16]) {
            let library = try Library(directory: try temp.make("library") + "/lib")
            #expect(Importer(library: library).run(stick) { _ in }.added == 1)
            var twin = TwinRun()
            twin.library = library
            var audio: [Int16] = []
            let output = try twin.run(try Scenario(parsing: scenario), stick: nil) { samples, count in
                for i in 0..<(count * 2) { audio.append(WAVWriter.s16(samples[i])) }
            }
            return (output, audio)
        }
    }

    @Test func eachControlActsWhereTheDaemonsDid() throws {
        let placement = try TwinScenario(countdownSeconds: 3).place(Self.records())
        // Play at 2 s, its music from 5 s: A pressed at 5 + 2 s, B at 5 + 4 s (the marks are
        // the frames heard as the button went down), each released where the daemon saw the
        // music, 120 ms later; the loop set at B's release and from A again there, as far
        // past A as the music had gone past B (5,760 frames: the beat goes on across the
        // seam), so what follows comes 5,760 frames sooner. The detent completes where the
        // daemon saw the music, with the twin hearing 2,047 frames behind (what it heard
        // then: part 2's frame 48 000, at twin frame 672 000).
        #expect(placement.controlFrames == [96_000, 341_760, 437_760, 480_000, 674_048, 722_048])
        #expect(placement.commandFrames == [96_000, 437_760, 480_000, 674_048, 722_048])
        #expect(placement.text.hasPrefix("1.920000000  press play\n2.000000000  release play\n"), "\(placement.text)")
        #expect(placement.text.contains("7.000000000  press loop\n7.120000000  release loop\n"), "\(placement.text)")
        #expect(placement.text.contains("13.930166666  latency 2047\n13.930166666  turn +1\n"), "\(placement.text)")

        let (output, _) = try Rig().run(placement.text)
        let state = output.finalState
        // The loop the twin marked is the daemon's, to the frame; it was saved with part 1.
        #expect(state.routines.first?.parts.first?.savedLoop == ABLoop(a: 96_000, b: 192_000))
        #expect(state.partIndex == 1)
        #expect(state.transport == .paused)
        // Paused at the daemon's frame; the 5 ms ramp-out plays on from there: the seek went
        // to the frame heard at the detent plus a second.
        #expect(state.position == 144_000 + 240)
    }

    /// The volume chord as the daemon logs it: PLAY down before the detent, up after it,
    /// the volume set where the daemon set it, the music moving on.
    @Test func theVolumeChordIsPlacedWithPlayHeldAroundItsDetent() throws {
        var records = Self.records()
        records.insert(ControlRecord(action: "turn -1 holding play", part: 2, frame: 108_800, transport: "playing"), at: 5)
        let placement = try TwinScenario(countdownSeconds: 3).place(records)
        // The +1 s seek at twin frame 674 048 put part 2 at its frame 96 000 there: 108 800
        // is 0.2667 s later.
        #expect(placement.controlFrames[5] == 686_848)
        #expect(placement.commandFrames.contains(686_848))
        #expect(placement.text.contains("14.116833333  press play\n14.196833333  turn -1\n14.389333333  release play\n"),
                "\(placement.text)")
        let (output, _) = try Rig().run(placement.text)
        #expect(output.finalState.settings.volume == 75)
        #expect(output.frames.lines.contains { $0.contains("|Volume       75%|████████████    |") })
        #expect(output.finalState.transport == .paused, "the chord neither paused nor played; the last PLAY paused")
    }

    /// The speed chord (LOOP held while the encoder turns) as the daemon logs it: from the
    /// position the daemon saw on, the music moves 0.95 of a frame a frame; applied a device
    /// period later when the render thread began one in between, which the next control's
    /// position tells.
    @Test(arguments: [0, 512] as [Int64])
    func theSpeedChordIsPlacedWhereTheDaemonAppliedIt(late: Int64) throws {
        var records = Self.records()
        records.insert(ControlRecord(action: "turn -1 holding loop", part: 2, frame: 108_800, transport: "playing"), at: 5)
        // 95 · 512 frames later at 95 %: 46 208 frames of part 2 further on.
        records[6] = ControlRecord(action: "press play", part: 2, frame: 108_800 + late + 46_208, transport: "playing")
        let placement = try TwinScenario(countdownSeconds: 3).place(records)
        // After the seek at twin frame 674 048 (part 2's frame 96 000 there).
        #expect(placement.controlFrames[5] == 686_848)
        #expect(placement.commands.map(\.kind.name) == ["start", "loop", "part", "seek", "speed", "pause"])
        #expect(placement.commandFrames[4] == 686_848 + late)
        #expect(placement.controlFrames[6] == 686_848 + late + 48_640)
        let start = (686_848 + late) * 1_000_000_000 / 48_000 - 112_500_000
        #expect(placement.text.contains("\(TwinScenario.seconds(start - 80_000_000))  press loop\n"
                                        + "\(TwinScenario.seconds(start))  turn -1\n"
                                        + "\(TwinScenario.seconds(start + 192_500_000))  release loop\n"), "\(placement.text)")
        let (output, _) = try Rig().run(placement.text)
        #expect(output.finalState.speedPercent == 95)
        #expect(output.finalState.transport == .paused)
        #expect((records[6].frame...records[6].frame + 240).contains(output.finalState.position), "\(output.finalState.position)")
        #expect(output.frames.lines.contains { $0.contains("|▶ 2/3 Verse     |0:03/0:20    95%|") }, "\(output.frames.text)")
    }

    /// The speed set while paused (four detents with LOOP held: 80 %), then PLAY: the count-in,
    /// and the music from where it paused at 80 %; a detent more while it plays (75 %), applied
    /// where the daemon saw it or a device period later, from where the music is at 80 % then;
    /// then PLAY pauses. The first pause applied where the daemon saw PLAY, or a period later
    /// (`pauseLate`): the paused chords' position says which, and the twin pauses there too,
    /// so the music goes on from the daemon's place.
    @Test(arguments: [(0, 0), (512, 512)] as [(Int64, Int64)])
    func theSpeedSetWhilePausedPlaysAtTheNextStartAndChangesAgainWhilePlaying(late: Int64, pauseLate: Int64) throws {
        var records = Self.records()
        let paused: Int64 = 144_240 + pauseLate
        for _ in 0..<4 {
            records.append(ControlRecord(action: "turn -1 holding loop", part: 2, frame: paused, transport: "paused"))
        }
        records.append(ControlRecord(action: "press play", part: 2, frame: paused, transport: "paused"))
        // 20 device periods of music at 80 %: 20 · 512 · 0.8 = 8,192 frames of part 2 on.
        records.append(ControlRecord(action: "turn -1 holding loop", part: 2, frame: paused + 8_192, transport: "playing"))
        // Where the music is when the change applies (at 80 % until then), and 40 periods at 75 % on.
        let applied = paused + (20 * 512 + late) * 80 / 100
        records.append(ControlRecord(action: "press play", part: 2, frame: applied + 40 * 384, transport: "playing"))
        let placement = try TwinScenario(countdownSeconds: 3).place(records)
        #expect(placement.commands.map(\.kind.name) == ["start", "loop", "part", "seek", "pause", "start", "speed", "pause"])
        // The chords while paused follow the pause a chord's length apart (two presses and a
        // detent: 310 ms, 14,880 frames), each on the twin's period grid.
        #expect(placement.controlFrames[5] == 722_048)
        #expect(placement.commandFrames[4] == 722_048 + pauseLate)
        let pause = 722_048 + pauseLate
        #expect(placement.controlFrames[6...9].map { $0 - pause } == [14_976, 29_952, 44_928, 59_904])
        // The start two seconds after the last chord; its music three seconds later.
        let start = placement.controlFrames[10]
        #expect(start == pause + 59_904 + 96_000)
        let music = start + 144_000
        #expect(placement.controlFrames[11] == music + 10_240)
        #expect(placement.commandFrames[6] == music + 10_240 + late)
        #expect(placement.controlFrames[12] == music + 10_240 + late + 40 * 512)
        let (output, _) = try Rig().run(placement.text)
        #expect(output.finalState.speedPercent == 75)
        #expect(output.finalState.transport == .paused)
        #expect((records[12].frame...records[12].frame + 240).contains(output.finalState.position), "\(output.finalState.position)")
        #expect(output.frames.lines.contains { $0.contains("|‖ 2/3 Verse     |") && $0.contains("80%|") }, "\(output.frames.text)")
        #expect(output.frames.lines.contains { $0.contains("|▶ 2/3 Verse     |") && $0.contains("75%|") }, "\(output.frames.text)")
    }

    /// NEXT while paused to the Outro, whose manifest loop (0:04–0:06) has a lead-in of 2 beats
    /// at 120 BPM and a ramp 80, 90, 100 %, then PLAY and a pause in the third pass: placed by
    /// the passes' lengths the render side plays (120 000 frames at 80 %, 160 000 at 90 %), the
    /// twin pauses at the daemon's frame, in its third pass.
    @Test func aPauseInTheThirdPassOfARampedLoopWithALeadInIsWhereTheDaemonPaused() throws {
        var records = Self.records()
        records.append(ControlRecord(action: "press next", part: 2, frame: 144_240, transport: "paused"))
        records.append(ControlRecord(action: "press play", part: 3, frame: 192_000, transport: "stopped"))
        // 0:05 in the third pass, on the twin's period grid (the pass starts 64 frames off it).
        let paused: Int64 = 144_000 + 96_000 + 64
        records.append(ControlRecord(action: "press play", part: 3, frame: paused, transport: "playing"))
        var scenario = TwinScenario(countdownSeconds: 3)
        scenario.rampedLoops = [3: .init(a: 192_000, b: 288_000, leadIn: 48_000, speeds: [80, 90, 100])]
        // PLAY half a second after the title's 3 s; 0:05 sounds in every pass: the edges'
        // pointers say which, measured from the PLAY's own edge (here the box pressed it 4 s
        // later than the twin does, more than a pass: the first start's alignment would pick
        // the fourth).
        let start: Int64 = (722_048 + 48_000 + 168_000 + 127) / 128 * 128, music = start + 144_000
        let third = music + 120_000 + 160_000 + 96_064
        var through = [Int64?](repeating: nil, count: records.count)
        through[7] = start + 192_000
        through[8] = third + 192_000 + 512
        let edges = TwinScenario.Edges(captureOnset: 96_000, renderedThrough: through)
        let placement = try scenario.place(records, edges: edges)
        #expect(placement.controlFrames[6...8] == [Int64(722_048 + 48_000), start, third])
        let (output, _) = try Rig().run(placement.text)
        #expect(output.finalState.partIndex == 2)
        #expect(output.finalState.transport == .paused)
        #expect(output.finalState.loopPass == 3)
        #expect(output.finalState.position == paused + 240, "\(output.finalState.position)")
        #expect(output.frames.lines.contains { $0.contains("90%") && $0.contains("x2") }, "\(output.frames.text)")
    }

    /// A pause that ended elsewhere than a pause where the daemon saw PLAY, or a period
    /// later, ends: refused, naming where it paused (two periods late is more than the pause
    /// kind allows; off the grid is no pause of this placement at all).
    @Test(arguments: [1_024, 100] as [Int64])
    func aPauseMoreThanAPeriodLateOrOffItsRampIsRefused(late: Int64) {
        var records = Self.records()
        records.append(ControlRecord(action: "press play", part: 2, frame: 144_240 + late, transport: "paused"))
        #expect(throws: TwinScenario.Unplaceable.self) { try TwinScenario(countdownSeconds: 3).place(records) }
    }

    @Test func aControlOffTheTwinsPeriodGridOrOutOfItsModelIsRefused() {
        var records = Self.records()
        records[1].frame = 96_001
        #expect(throws: TwinScenario.Unplaceable.self) { try TwinScenario(countdownSeconds: 3).place(records) }
        let held = [ControlRecord(action: "long press play", part: 1, frame: 0, transport: "stopped")]
        #expect(throws: TwinScenario.Unplaceable.self) { try TwinScenario(countdownSeconds: 3).place(held) }
        #expect(ControlRecord(logLine: "control: press loop at part 1 frame 96000 (playing)")
            == ControlRecord(action: "press loop", part: 1, frame: 96_000, transport: "playing"))
        #expect(ControlRecord(logLine: "control: turn -1 at part 2 frame 5 (counting down 2)")
            == ControlRecord(action: "turn -1", part: 2, frame: 5, transport: "counting down 2"))
        #expect(ControlRecord(logLine: "ready: qemu board-in-a-box") == nil)
        // A mark's frame is the one heard at its edge, from the line after it.
        #expect(ControlRecord.records(fromLog: [
            "control: press loop at part 1 frame 96000 (playing)",
            "control edge: press loop at 12345678901 ns heard part 1 frame 95000",
            "control: press next at part 1 frame 99000 (playing)",
            "control edge: press next at 12445678901 ns heard part 1 frame 98000",
        ]) == [ControlRecord(action: "press loop", part: 1, frame: 95_000, transport: "playing", seen: 96_000,
                             edgeInstant: 12_345_678_901),
               ControlRecord(action: "press next", part: 1, frame: 99_000, transport: "playing", edgeInstant: 12_445_678_901)])
    }

    @Test func theComparisonTellsTheTwinFromATwinWhoseAWasOnePeriodLater() throws {
        let rig = try Rig()
        let right = try TwinScenario(countdownSeconds: 3).place(Self.records())
        let twin = try rig.run(right.text)
        // The count-in's first tick sounds at the frame the start applies (what `Edges` aligns on).
        #expect(AudioComparison.firstSound(twin.audio) == Int(right.controlFrames[0]))
        // The same audio, as if captured 0.3 s after its start: equal everywhere, the
        // crossfades, the ramps and the silence after the pause included.
        let captured = [Int16](repeating: 0, count: 14_400 * 2) + twin.audio
        let same = AudioComparison().compare(capture: captured, twin: twin.audio, commands: right.commands)
        #expect(same.matches, "\(same.failures)")
        #expect(same.matchedSoundFrames == same.soundFrames, "\(same.summary)")
        #expect(same.segments.allSatisfy { $0.windowFrames == 0 && $0.offset == 14_400 }, "\(same.summary)")
        #expect(right.commands.map(\.kind.name) == ["start", "loop", "part", "seek", "pause"])

        // A one period later: the loop is 128 frames shorter, every repeat lands elsewhere.
        let wrong = try TwinScenario(countdownSeconds: 3).place(Self.records(a: 96_128))
        let other = try rig.run(wrong.text)
        let result = AudioComparison().compare(capture: other.audio, twin: twin.audio, commands: right.commands)
        #expect(!result.matches)
    }

    /// NEXT at 0:03 of an A–B loop from 0:02 to 0:04: the same position comes round each
    /// pass; the edge says which.
    @Test func aControlInALoopGoesInThePassItsEdgeWasMadeIn() throws {
        var records = Self.records()
        records[3].frame = 144_000
        let second = try TwinScenario(countdownSeconds: 3).place(records)
        // B, recognised at twin frame 437 760 with the music 5 760 frames past it, wraps as
        // far past A: position 144 000 at 480 000, 576 000, …
        #expect(second.controlFrames[3] == 480_000)
        // The capture began 4 000 frames before the twin (its first tick at capture frame
        // 100 000); the render thread was 2 048 frames ahead of what sounded at NEXT's edge.
        let shift: Int64 = 100_000 - 96_000
        var through = [Int64?](repeating: nil, count: records.count)
        through[3] = 576_000 + shift - 2_048
        let edges = TwinScenario.Edges(captureOnset: 100_000, renderedThrough: through)
        let third = try TwinScenario(countdownSeconds: 3).place(records, edges: edges)
        #expect(third.controlFrames[3] == 576_000)
        #expect(third.controlFrames[4] == 576_000 + 144_000 + 50_048, "the part counts in 3 s, then the detent")
        let (output, audio) = try Rig().run(third.text)
        #expect(output.frames.lines.contains { $0.contains("⟲x3") }, "\(output.frames.text)")

        // Each control against its edge, through the offset the comparison finds.
        let captured = [Int16](repeating: 0, count: Int(shift) * 2) + audio
        let comparison = AudioComparison().compare(capture: captured, twin: audio, commands: third.commands)
        #expect(comparison.matches, "\(comparison.failures)")
        var frontier = third.controlFrames.map { Optional($0 + shift) }
        frontier[1]! -= 512
        frontier[2]! += 300
        // What the capture pointer said was sounding at LOOP's down edges and the detent, as
        // part positions (what `place` takes from `Edges.soundingAtHeardEdge`).
        #expect(third.heardFrames == [nil, 336_000, 432_000, nil, Int64(576_000 + 144_000 + 48_000), nil])
        var heardAt = third
        heardAt.edgePositions = [nil, Int64(96_000 - 100), Int64(192_000 + 50), nil, 48_000, nil]
        let near = EdgeAgreement(records: records, placement: heardAt,
                                 edges: .init(captureOnset: 100_000, renderedThrough: frontier),
                                 comparison: comparison, tolerance: 512)
        #expect(near.failures.isEmpty, "\(near.failures)")
        // LOOP and a plain detent act where they were heard at their down edge (held to the
        // frame sounding there), and are held to their deciding edge by the position the
        // daemon saw as they arrived.
        #expect(near.summary == "press loop +512 (heard +100), press loop -300 (heard -50), press next +0, turn +1 +0 (heard +0), press play +0",
                "\(near.summary)")
        // The daemon's frame 600 frames after its edge: more than a period; a mark 600
        // frames from what sounded at its edge, likewise.
        frontier[3]! -= 600
        heardAt.edgePositions[2]! -= 650
        let far = EdgeAgreement(records: records, placement: heardAt,
                                edges: .init(captureOnset: 100_000, renderedThrough: frontier),
                                comparison: comparison, tolerance: 512)
        #expect(far.failures.count == 2)
        #expect(far.failures.first?.hasPrefix("press loop: the daemon heard part 1 frame 192000, 600 frames") == true,
                "\(far.failures)")
        #expect(far.failures.last?.hasPrefix("press next: the daemon saw part 1") == true, "\(far.failures)")
        // Read again after the edge was written: the render thread wrote 200 frames while the
        // write was under way, so NEXT's edge may have been made 400 frames before the daemon
        // saw it. Held to the nearer end of that bracket, it is within a period; a bracket
        // that ends 550 frames before is not.
        var after = [Int64?](repeating: nil, count: records.count)
        after[3] = frontier[3]! + 200
        let bracketed = EdgeAgreement(records: records, placement: heardAt,
                                      edges: .init(captureOnset: 100_000, renderedThrough: frontier, renderedThroughAfter: after),
                                      comparison: comparison, tolerance: 512, heardTolerance: 700)
        #expect(bracketed.failures.isEmpty, "\(bracketed.failures)")
        #expect(bracketed.summary == "press loop +512 (heard +100), press loop -300 (heard +600), "
            + "press next +400 [200 rendered during the edge], turn +1 +0 (heard +0), press play +0", "\(bracketed.summary)")
        after[3] = frontier[3]! + 50
        let short = EdgeAgreement(records: records, placement: heardAt,
                                  edges: .init(captureOnset: 100_000, renderedThrough: frontier, renderedThroughAfter: after),
                                  comparison: comparison, tolerance: 512, heardTolerance: 700)
        #expect(short.failures == ["press next: the daemon saw part 1 frame 144000 (twin frame 576000), 550 frames from where its edge was "
            + "(twin frames \(575_400)–\(575_450)); at most 512 allowed"], "\(short.failures)")
    }

    @Test func theLCDSequenceMatchesTheTwinsFramesWithRedrawsAndOtherClockDigits() throws {
        let placement = try TwinScenario(countdownSeconds: 3).place(Self.records())
        let (output, _) = try Rig().run(placement.text)
        let frames = ScreenSequence.parseFrameLog(output.frames.text, columns: 16)
        #expect(frames.count == output.frames.lines.count)
        // B marked: the loop's times in place of the clock (NEXT comes within their 2 s).
        #expect(frames.contains(["▶ 1/3 Intro   ⒶⒷ", "A0:02.0  B0:04.0"]), "\(frames)")
        let blank = [String(repeating: " ", count: 16), String(repeating: " ", count: 16)]
        let expected = [blank] + frames

        // The LCD: a redraw under way between frames, and clocks one second off.
        var observed: [ScreenSequence.Screen] = [blank]
        for (k, frame) in frames.enumerated() {
            if k > 0 {
                let previous = frames[k - 1]
                observed.append([frame[0], previous[1]]) // first row written, second not yet
                if frame[1] != previous[1] {
                    // The second row being written cell by cell: "0", "0:", "0:0" …
                    let cells = Array(frame[1]), old = Array(previous[1])
                    for n in 1..<cells.count where cells[n - 1] != old[n - 1] {
                        observed.append([frame[0], String(cells[..<n] + old[n...])])
                    }
                }
            }
            observed.append(frame.map { $0.replacingOccurrences(of: "0:0", with: "0:1") })
        }
        #expect(ScreenSequence.mismatch(observed: observed, expected: expected) == nil)

        // A frame the LCD never showed, a wrong part number, a screen from nowhere.
        let countdown = try #require(frames.firstIndex { $0[0].hasPrefix("Ready in") && $0[1].hasSuffix("█▄▄") })
        var missing = observed
        missing.removeAll { $0 == frames[countdown] }
        #expect(ScreenSequence.mismatch(observed: missing, expected: expected) != nil)
        let wrongPart = observed.map { $0.map { $0.replacingOccurrences(of: "2/3", with: "3/3") } }
        #expect(ScreenSequence.mismatch(observed: wrongPart, expected: expected)?.contains("3/3") == true)
        var stray = observed
        stray.insert(["No routines     ", "Insert a stick  "], at: observed.count / 2)
        #expect(ScreenSequence.mismatch(observed: stray, expected: expected)?.contains("No routines") == true)
    }
}
