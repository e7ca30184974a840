import BoxSupport
import Glibc
import SegmanceScreen
import SndFile
import Testing

extension SystemTests {
    /// The real daemon (`segmance run`) on the box's drivers, as a performer uses it.
    @Suite(.tags(.system)) struct Daemon {
        /// The play/pause ramp and the crossfades at seams and seeks (5 ms, `RenderConfig`).
        static let rampFrames = 240

        /// Buttons with contact bounce and the encoder through gpio-sim: PLAY counts in (in
        /// big digits) and plays, LOOP twice makes an A–B loop whose passes are counted on
        /// the LCD, NEXT changes part, a detent seeks, PLAY held while the encoder turns
        /// lowers the volume (a bar on the LCD, the music plays on), PLAY pauses; LOOP held while
        /// the encoder turns four detents sets the speed (80 % beside the clock), PLAY counts
        /// in and plays on from there at 80 %, and PLAY pauses again. Watched on the LCD (the smbus trace decoded by the HD44780 model), on
        /// the loopback card and in the daemon's log; at each deciding edge the loopback
        /// card's pointers say where the render thread was. Then the twin plays the same
        /// controls where the edges and the daemon's frames put them, and the LCD's screens
        /// and the captured audio must be the twin's, ramps and crossfades included. Last, NEXT to
        /// part 3 and PLAY: its loop from the manifest with a lead-in of 2 beats and a speed ramp of
        /// 80, 90, 100 % plays three passes, compared with the twin as the rest is.
        @Test func aRehearsalOnTheButtonsIsWhatTheTwinPlays() throws {
            let rig = try DaemonRig("rehearsal", routines: [BoxStick.rehearsal])
            try rig.start()
            try rig.sayingAudioTrouble { try rehearse(rig) }
        }

        private func rehearse(_ rig: DaemonRig) throws {
            let lcd = try #require(rig.lcd), capture = try #require(rig.capture), daemon = try #require(rig.daemon)
            var panel = rig.panel
            // The stimulus of each control the daemon logs, in order.
            var stimuli: [SimulatedPanel.Played] = []
            print("rehearsal: \(DaemonRig.binary ?? "") runs as \(rig.daemonUser ?? "root")")
            func clock(_ text: String) -> ([String]) -> Bool { { $0[1].hasPrefix(text + "/0:20") } }
            // The count-in as the twin draws it: "Ready in", the part, the number two rows high.
            func readyIn(_ n: Int, _ part: String) -> [String] {
                var frame = Frame(columns: 16, rows: 2)
                frame.glyphs = .bigDigits
                let digits = BigDigits.rows(n)
                frame.put(digits.top, row: 0, column: 16 - digits.top.count)
                frame.put(digits.bottom, row: 1, column: 16 - digits.bottom.count)
                frame.put(Array("Ready in".utf8), row: 0)
                frame.put(Array(part.utf8), row: 1)
                return frame.text
            }

            // Part 1 of "Box Test", stopped at its start.
            var shown = try lcd.expectScreen("part 1 stopped", timeout: 30) { $0 == ["■ 1/3 Intro     ", "0:00/0:20       "] }
            let silentUntil = capture.frames
            try panel.readPointers()

            // PLAY, bouncing: three seconds counted in with ticks, then the music.
            stimuli.append(try panel.tap("play"))
            var chatter = stimuli.last!.longestChatter
            for n in [3, 2, 1] {
                shown = try lcd.expectScreen("Ready in \(n)", timeout: 10, after: shown.index) { $0 == readyIn(n, "Intro") }
            }
            shown = try lcd.expectScreen("part 1 playing", timeout: 10, after: shown.index) { $0[0] == "▶ 1/3 Intro     " }
            let firstTick = try #require(capture.waitForSound(from: silentUntil, timeout: 10), "no sound after PLAY")
            let musicFrom = firstTick + 3 * 48_000
            _ = try #require(capture.waitForSound(from: musicFrom + 48_000, timeout: 10))
            let countIn = capture.samples(firstTick..<(musicFrom + 4_800))
            for k in 0..<3 {
                // A tick sounds at each second (30 ms), silence until the next.
                #expect(countIn[(k * 48_000) * 2] != 0, "no tick \(k + 1) at frame \(firstTick + k * 48_000)")
                let gap = ((k * 48_000 + 1_500) * 2)..<((k + 1) * 48_000 * 2)
                #expect(countIn[gap].allSatisfy { $0 == 0 }, "sound between tick \(k + 1) and what follows it")
            }
            #expect(countIn[(3 * 48_000 * 2)...].contains { $0 != 0 }, "no music after the count-in")

            // LOOP at 0:02 marks A, LOOP at 0:05 marks B: the loop plays from A again.
            func control(_ played: SimulatedPanel.Played) {
                stimuli.append(played)
                chatter = max(chatter, played.longestChatter)
            }
            shown = try lcd.expectScreen("0:02 into part 1", timeout: 10, after: shown.index, clock("0:02"))
            control(try panel.tap("loop"))
            shown = try lcd.expectScreen("the A mark", timeout: 5, after: shown.index) { $0[0] == "▶ 1/3 Intro    Ⓐ" }
            shown = try lcd.expectScreen("0:05 into part 1", timeout: 10, after: shown.index, clock("0:05"))
            control(try panel.tap("loop"))
            shown = try lcd.expectScreen("the A–B loop", timeout: 5, after: shown.index) { $0[0] == "▶ 1/3 Intro   ⒶⒷ" }
            // B's mark shows both times in place of the clock for 2 s (LoopTimeRules.shownDuration)
            // of this 3 s loop's second pass: gone a second before the wrap, in the daemon as in
            // the twin (with a 2 s loop the two ends raced, and the LCD's order was a toss-up).
            shown = try lcd.expectScreen("the loop's times", timeout: 5, after: shown.index) {
                $0[0].hasSuffix("ⒶⒷ") && $0[1].hasPrefix("A0:0") && $0[1].contains("B0:0")
            }
            // At B the loop wraps by itself: the third pass, counted beside the clock (this
            // seam is compared with no command near it).
            shown = try lcd.expectScreen("the loop's third pass", timeout: 5, after: shown.index) {
                clock("0:02")($0) && $0[1].hasSuffix("⟲x3")
            }
            shown = try lcd.expectScreen("0:03 in the third pass", timeout: 5, after: shown.index, clock("0:03"))

            // NEXT: part 2 counts in and plays.
            control(try panel.tap("next"))
            shown = try lcd.expectScreen("part 2 counting in", timeout: 10, after: shown.index) { $0 == readyIn(3, "Verse") }
            shown = try lcd.expectScreen("part 2 playing", timeout: 10, after: shown.index) { $0[0] == "▶ 2/3 Verse     " }

            // The loop from the capture alone (no twin, no daemon frame), once its third pass
            // has played: its period, its seam back to A crossfaded, and pass 1 sounding A and
            // B where LOOP went down, by the kernel's timestamps of those edges and the
            // loopback card's capture pointer.
            do {
                let period = rig.profile.audio.periodFrames, jiffy = Int64(rig.profile.audio.rate * 4 / 1000)
                let loops = zip(rig.controls, stimuli).filter { $0.0.action == "press loop" }
                try #require(loops.count == 2, "\(rig.controls)")
                let rate = Int64(rig.profile.audio.rate)
                let edgeA = try #require(Self.heardEdge(loops[0].0, loops[0].1, rate: rate))
                let edgeB = try #require(Self.heardEdge(loops[1].0, loops[1].1, rate: rate))
                let heardA = edgeA.frame, heardB = edgeB.frame
                let loop = try LoopSeam.measure(capture: capture.samples(), heardA: heardA, heardB: heardB,
                                                tolerance: Int64(period * rig.profile.audio.periods))
                print("rehearsal: the loop from the capture: period \(loop.period) frames, pass 1 sounded A "
                    + "\(loop.a - heardA) and B \(loop.b - heardB) frames from LOOP's edges, the seam crossfaded over "
                    + "\(loop.crossfade) frames")
                // What sounded at an edge's timestamp is known to the capture pointer's step
                // and the time its read took; the seam's frame within the crossfade, to one.
                let near = jiffy + max(edgeA.readFrames, edgeB.readFrames) + 1
                let reads = "reads \(edgeA.readFrames) and \(edgeB.readFrames) frames long"
                #expect(abs(loop.a - heardA) <= near && abs(loop.b - heardB) <= near,
                        "A \(loop.a - heardA), B \(loop.b - heardB) frames from LOOP's edges (at most \(near): step \(jiffy), \(reads))")
                #expect((Self.rampFrames - 2)...(Self.rampFrames + 1) ~= Int(loop.crossfade), "crossfade \(loop.crossfade)")
            }

            // One detent clockwise: a second forward.
            shown = try lcd.expectScreen("0:01 into part 2", timeout: 10, after: shown.index, clock("0:01"))
            control(try panel.turn(clockwise: true))
            let turned = try daemon.expectLine(containing: "control: turn +1", timeout: 5)
            shown = try lcd.expectScreen("0:04 into part 2", timeout: 10, after: shown.index, clock("0:04"))

            // PLAY held while the encoder turns a detent back: the volume (80 % to 75 %) as a
            // bar, and the music plays on.
            chatter = max(chatter, try panel.press("play").longestChatter)
            control(try panel.turn(clockwise: false))
            chatter = max(chatter, try panel.release("play").longestChatter)
            let chord = try daemon.expectLine(containing: "control: turn -1 holding play", timeout: 5, after: turned.index + 1)
            shown = try lcd.expectScreen("the volume bar", timeout: 5, after: shown.index) {
                $0 == ["Volume       75%", "████████████    "]
            }
            shown = try lcd.expectScreen("part 2 playing after the volume", timeout: 10, after: shown.index) {
                $0[0] == "▶ 2/3 Verse     "
            }

            // PLAY pauses: the symbol, and silence after the ramp.
            control(try panel.tap("play"))
            shown = try lcd.expectScreen("part 2 paused", timeout: 10, after: shown.index) { $0[0] == "‖ 2/3 Verse     " }
            let paused = try daemon.expectLine(containing: "control: press play", timeout: 5, after: chord.index + 1)
            #expect(paused.line.text.hasSuffix("(playing)"))
            _ = try #require(capture.waitForSilence(from: capture.frames, length: 96_000, timeout: 10), "sound after the pause")

            // LOOP held while the encoder turns four detents back, paused: the part's speed
            // to 80 %, beside the clock. The first speed other than 100 % makes the
            // stretchers on a worker thread (a second and more under TCG); the twin makes
            // them at once, so PLAY waits for the daemon's line that they are made (a PLAY
            // meanwhile would count in on the LCD while its ticks wait behind them).
            let speedAt = daemon.log.count
            chatter = max(chatter, try panel.press("loop").longestChatter)
            for speed in [95, 90, 85, 80] {
                // A detent at a performer's pace: ones closer than 60 ms count double
                // (`ControlMap`'s acceleration), which the twin's slow detents do not.
                if speed < 95 { Box.hold(milliseconds: 100) }
                control(try panel.turn(clockwise: false))
                shown = try lcd.expectScreen("paused at \(speed) %", timeout: 10, after: shown.index) {
                    $0[0] == "‖ 2/3 Verse     " && $0[1].hasSuffix("\(speed)%")
                }
            }
            chatter = max(chatter, try panel.release("loop").longestChatter)
            let made = try daemon.expectLine(containing: "stretchers made for", timeout: 60, after: speedAt)
            print("rehearsal: \(made.line.text)")

            // PLAY: part 2 counts in and plays on from where it paused, at 80 %.
            control(try panel.tap("play"))
            shown = try lcd.expectScreen("part 2 counting in again", timeout: 10, after: shown.index) { $0 == readyIn(3, "Verse") }
            shown = try lcd.expectScreen("part 2 playing at 80 %", timeout: 10, after: shown.index) {
                $0[0] == "▶ 2/3 Verse     " && $0[1].hasSuffix("80%")
            }
            /// Two seconds of the part on from the clock `rows` shows.
            func twoSecondsOn(_ rows: [String]) -> ([String]) -> Bool {
                let clock = rows[1].prefix(4).split(separator: ":").compactMap { Int($0) }
                let later = (clock.count == 2 ? clock[0] * 60 + clock[1] : 0) + 2
                return { $0[1].hasPrefix("\(later / 60):" + (later % 60 < 10 ? "0" : "") + "\(later % 60)/0:20") }
            }
            shown = try lcd.expectScreen("two seconds on at 80 %", timeout: 10, after: shown.index, twoSecondsOn(shown.shown.rows))

            // PLAY pauses again. (A speed change while the music plays starts a stream nothing
            // foretold, its stretcher's start-up work in one period: more than the 512 × 4
            // buffer leaves under the box's emulation, where it underran. The twin and the
            // engine compare it on the host: SpeedTests, RewindTests, TwinSpeedTests.)
            control(try panel.tap("play"))
            shown = try lcd.expectScreen("part 2 paused at 80 %", timeout: 10, after: shown.index) {
                $0[0] == "‖ 2/3 Verse     " && $0[1].hasSuffix("80%")
            }
            _ = try #require(capture.waitForSilence(from: capture.frames, length: 96_000, timeout: 10), "sound after the second pause")

            // NEXT: part 3, whose loop (0:04–0:06, 120 BPM) has a lead-in of 2 beats and a ramp
            // 80 → 100 by 10 from the manifest: stopped at A, the ramp's first speed beside the
            // clock. PLAY counts in; the first pass plays from A at 80 %, the second from 0:03
            // (A - 1 s) at 90 %, the third at 100 %, each speed changed on the seam by the render
            // side: the capture against the twin below says it sounded so, frame for frame.
            control(try panel.tap("next"))
            shown = try lcd.expectScreen("part 3 at A at 80 %", timeout: 10, after: shown.index) {
                $0[0].hasPrefix("■ 3/3 Outro") && $0[1].hasPrefix("0:04") && $0[1].contains("80%")
            }
            control(try panel.tap("play"))
            // A loop's count-in shows its pass before the part's name.
            shown = try lcd.expectScreen("part 3 counting in", timeout: 10, after: shown.index) {
                $0[0] == readyIn(3, "Outro")[0] && $0[1].hasPrefix("⟲x1 Outro")
            }
            shown = try lcd.expectScreen("part 3's loop at 80 %", timeout: 10, after: shown.index) {
                $0[0].hasPrefix("▶ 3/3 Outro") && $0[1].contains("80%")
            }
            shown = try lcd.expectScreen("the second pass at 90 %", timeout: 10, after: shown.index) {
                $0[1].contains("90%") && $0[1].hasSuffix("x2")
            }
            shown = try lcd.expectScreen("the second pass in its lead-in", timeout: 10, after: shown.index) {
                $0[1].hasPrefix("0:03")
            }
            shown = try lcd.expectScreen("the third pass at 100 %", timeout: 10, after: shown.index) {
                !$0[1].contains("%") && $0[1].hasSuffix("x3")
            }
            shown = try lcd.expectScreen("0:05 in the third pass", timeout: 10, after: shown.index, clock("0:05"))
            control(try panel.tap("play"))
            shown = try lcd.expectScreen("part 3 paused", timeout: 10, after: shown.index) { $0[0].hasPrefix("‖ 3/3 Outro") }
            _ = try #require(capture.waitForSilence(from: capture.frames, length: 96_000, timeout: 10), "sound after the third pause")
            try rig.stop()

            // The daemon's log: the controls, in order, and no trouble with the audio.
            #expect(rig.controls.map(\.action) == ["press play", "press loop", "press loop", "press next", "turn +1",
                                                   "turn -1 holding play", "press play"]
                        + Array(repeating: "turn -1 holding loop", count: 4)
                        + ["press play", "press play", "press next", "press play", "press play"],
                    "\(daemon.text)")
            #expect(rig.audioTrouble.isEmpty, "\(rig.audioTrouble)")
            #expect(capture.problem == nil)
            #expect(lcd.model.glyphs == Glyph.allCases.map(\.pattern), "the LCD's CGRAM does not hold the glyphs")
            let debounce = rig.profile.timing.debounce
            print("rehearsal: the longest burst of contact bounce took \(chatter / 1000) µs (debounce \(debounce / 1_000_000) ms)")
            #expect(chatter < debounce, "a burst of chatter took \(chatter / 1000) µs, longer than the debounce (\(debounce / 1000) µs): the VM stretched it")

            // The twin, on the same controls where their edges put them: LOOP and the detent
            // hear what sounded at their heard edges' kernel timestamps (`heardEdge`), the
            // others act where the daemon saw its render thread (held to their edges below).
            let controls = rig.controls
            try #require(stimuli.count == controls.count, "\(stimuli.count) stimuli for \(controls.count) controls logged")
            let rate = Int64(rig.profile.audio.rate)
            let heardEdges = zip(controls, stimuli).map { Self.heardEdge($0, $1, rate: rate) }
            let period = rig.profile.audio.periodFrames
            let jiffy = Int64(rig.profile.audio.rate * 4 / 1000)
            let edges = TwinScenario.Edges(captureOnset: Int64(firstTick),
                                           renderedThrough: stimuli.map { $0.pointers?.renderedThrough },
                                           renderedThroughAfter: stimuli.map { $0.pointersAfter?.renderedThrough },
                                           soundingAtHeardEdge: heardEdges.map { $0?.frame })
            var scenario = TwinScenario(countdownSeconds: 3,
                                        kinds: .init(devicePeriodFrames: period, rampFrames: Self.rampFrames))
            // The Outro's loop of the manifest (BoxStick.rehearsal): 0:04–0:06, a lead-in of
            // 2 beats at 120 BPM, passes at 80, 90 and 100 %.
            scenario.rampedLoops = [3: .init(a: 4 * rate, b: 6 * rate, leadIn: rate, speeds: [80, 90, 100])]
            let samples = capture.samples()
            let atEdges = try scenario.place(controls, edges: edges)
            let first = try TwinOutput(rig: rig, placement: atEdges, name: "twin-at-edges")
            // Where the capture says LOOP and the detent acted, against that twin; the twin
            // plays again from there (the daemon's logged frames are only checked).
            let heard = try HeardMeasurement(controls: controls, placement: atEdges, capture: samples, twin: first.audio,
                                             shift: Int64(firstTick) - atEdges.controlFrames[0], period: Int64(period),
                                             periods: Int64(rig.profile.audio.periods))
            let atEdge: [Int64] = heard.edgePositions.compactMap { $0 }
            let played: [Int64] = heard.positions.compactMap { $0 }
            let logged: [Int64] = controls.indices.filter { heard.positions[$0] != nil }.map { controls[$0].frame }
            print("rehearsal: LOOP and the detent heard, at their edges \(atEdge), by the capture \(played), logged \(logged)")
            var placement = try scenario.place(controls, edges: edges, heard: heard.positions)
            placement.edgePositions = heard.edgePositions
            let twin = try TwinOutput(rig: rig, placement: placement, name: "twin")
            twin.keep(capture: samples, rate: rig.profile.audio.rate)
            let lcdMismatch = ScreenSequence.mismatch(observed: lcd.screens.map(\.rows), expected: [twin.blank] + twin.frames)
            #expect(lcdMismatch == nil, "\(lcdMismatch ?? "")")

            let result = AudioComparison().compare(capture: samples, twin: twin.audio, commands: placement.commands)
            print("rehearsal: audio against the twin: \(result.summary)")
            #expect(result.matches, "\(result.failures.joined(separator: "\n"))")
            // The daemon reads the render thread's position when a control arrives and sends
            // the command at once: only a period the render thread begins in between (or the
            // work a command needs first) delays it, which cannot befall every command of a
            // run. A daemon that acts a period late delays them all.
            let delays = result.segments.compactMap { s in s.command?.kind.realigns == false ? s.delay : nil }
            #expect(!result.matches || delays.contains(0),
                    "every command applied at least a period later than the twin: \(result.summary)")
            // Each control where its edge says: the frame the daemon logged is within one
            // period of where its render thread was when the button changed (the pointers
            // read on both sides of the edge, each read within one step of snd-aloop's
            // pointers: exact; the render thread writes a period at a time). For LOOP and a
            // detent, the frame the capture played as heard is the daemon's logged one, and
            // within what the edge's clock explains of what sounded at the kernel's
            // timestamp of its heard edge: the step the capture pointer moves in (a jiffy:
            // 4 ms at HZ=250), the time the pointer's read took, and a frame of rounding.
            let reads = heardEdges.compactMap { $0?.readFrames }.max() ?? 0
            let heardTolerance = jiffy + reads + 1
            let agreement = EdgeAgreement(records: controls, placement: placement, edges: edges,
                                          comparison: result, tolerance: Int64(period), heardTolerance: heardTolerance,
                                          heard: heard.positions)
            print("rehearsal: the daemon's frame minus its edge's, per control: \(agreement.summary) "
                + "(period \(period), heard at most \(heardTolerance): pointer step \(jiffy), longest read \(reads))")
            #expect(agreement.failures.isEmpty, "\(agreement.failures.joined(separator: "\n"))")
        }
    }
}

extension SystemTests.Daemon {
    /// The capture frame sounding at the kernel's timestamp of the edge a control that acts
    /// where heard heard the music at (LOOP going down, a detent's last step), and how many
    /// frames the read it comes from took: the capture pointer read just before that edge
    /// was made, moved on from its read to the timestamp (`LoopbackPointers.captureFrame(at:)`).
    /// Nil for other controls.
    static func heardEdge(_ control: ControlRecord, _ played: SimulatedPanel.Played,
                          rate: Int64) -> (frame: Int64, readFrames: Int64)? {
        guard control.actsWhereHeard, let instant = control.edgeInstant else { return nil }
        guard let pointers = control.action.hasPrefix("turn") ? played.pointers : played.downPointers else { return nil }
        return (pointers.captureFrame(at: instant, rate: rate), pointers.readFrames(rate: rate))
    }
}

/// What `segmance sim` renders for a placement, from a library imported from the same stick.
struct TwinOutput {
    let audio: [Int16]
    let frames: [[String]]
    let blank: [String]

    /// Renders in `rig.directory/name`, from a copy of a library imported there once
    /// (`twin-library`): the sim saves the volume, loops and resume point into the library
    /// it plays, so each render starts from the import's state, as the daemon did.
    init(rig: DaemonRig, placement: TwinScenario.Placement, name: String = "twin") throws {
        let folder = rig.directory + "/" + name, imported = rig.directory + "/twin-library"
        let binary = try #require(DaemonRig.binary)
        try BoxProcess.check(["/bin/mkdir", "-p", folder])
        try rig.writeText(placement.text, to: folder + "/rehearsal.scenario")
        if access(imported, F_OK) != 0 {
            try BoxProcess.check([binary, "import", rig.stick, "--library", imported], timeout: 300)
        }
        let library = folder + "/library"
        try BoxProcess.check(["/bin/rm", "-rf", library])
        try BoxProcess.check(["/bin/cp", "-a", imported, library])
        try BoxProcess.check([binary, "sim", "--library", library, "--scenario", folder + "/rehearsal.scenario",
                              "--wav", folder + "/twin.wav", "--frames", folder + "/frames.txt"], timeout: 300)
        let file = try SoundFile(readingFrom: folder + "/twin.wav")
        audio = try file.readAllInt16()
        let columns = rig.profile.display.columns
        frames = ScreenSequence.parseFrameLog(try Box.read(folder + "/frames.txt"), columns: columns)
        blank = Array(repeating: String(repeating: " ", count: columns), count: rig.profile.display.rows)
        self.folder = folder
    }

    let folder: String

    /// For a look afterwards (the run folder is kept with boxrun --keep): the capture, the
    /// twin's scenario, audio and frames beside the daemon's log.
    func keep(capture: [Int16], rate: Int) {
        guard access("/share", W_OK) == 0 else { return }
        _ = try? BoxProcess.check(["/bin/cp", folder + "/rehearsal.scenario", folder + "/twin.wav",
                                   folder + "/frames.txt", "/share/"])
        if let file = try? SoundFile(writingTo: "/share/capture-rehearsal.wav", format: .wavPCM16,
                                     sampleRate: rate, channels: 2) {
            try? file.write(capture)
        }
    }
}
