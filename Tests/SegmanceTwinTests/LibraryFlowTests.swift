import Foundation
import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceTestSupport
@testable import SegmanceTwin
import SndFile
import StickTransfer
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The appliance with a real library: sticks offered and imported through the same path
/// as the daemon's, and the performer's place surviving a restart.
@Suite(.tags(.integration)) struct LibraryFlowTests {
    let temp = TempDirs()
    static let rate = 48_000

    /// A stick with one routine "Counting" of one part whose frames count up (see TwinScenarioTests).
    private func stick() throws -> String {
        let root = try temp.make("stick")
        try TestFiles.mkdir(root + "/Counting")
        try TestFiles.write(TwinScenarioTests.source(frames: 30 * Self.rate), to: root + "/Counting/01 Count.wav")
        return root
    }

    private func run(_ text: String, library: Library, stick: String? = nil, autoImport: Bool = false) throws
        -> (samples: [Int16], output: TwinRun.Output) {
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 100
        configuration.settings.autoImport = autoImport
        var twin = TwinRun(configuration: configuration)
        twin.library = library
        var samples: [Int16] = []
        let output = try twin.run(try Scenario(parsing: text), stick: stick) { buffer, count in
            for i in 0..<count * 2 { samples.append(WAVWriter.s16(buffer[i])) }
        }
        return (samples, output)
    }

    @Test func aStickActionIsOfferedAndThePushImportsIt() throws {
        let stick = try stick()
        let library = try Library(directory: try temp.make("library"))
        let (_, output) = try run("1.0 stick \(stick)\n5.0 tap select\n6.0 tap play\n8.0 end", library: library)
        let lines = output.frames.lines
        #expect(lines.contains { $0.hasPrefix("    1.000 |Stick found     |1 routine       |") })
        // When the notice has had its 3 s, the offer waits for the push.
        #expect(lines.contains { $0.hasPrefix("    4.002 |Stick: 1 routine|Push to import  |") })
        #expect(output.finalState.routine?.title == "Counting")
        #expect(output.finalState.transport == .playing)
        #expect(try library.routines().map(\.title) == ["Counting"])
        #expect(output.log.contains("import: Counting: added"))
    }

    @Test func withAutoImportTheStickActionImportsAtOnce() throws {
        let stick = try stick()
        let library = try Library(directory: try temp.make("library"))
        let (_, output) = try run("1.0 stick \(stick)\n1.5 tap play\n3.0 end", library: library, autoImport: true)
        #expect(output.finalState.transport == .playing)
        #expect(output.log.contains("import: Counting: added"))
        #expect(output.finalState.routine?.title == "Counting")
    }

    /// The daemon restarts: a new appliance on the same library directory (every bit of
    /// state read back from disk) stands where the performer paused, and PLAY continues
    /// with the very next sample.
    @Test func resumeSurvivesARestart() throws {
        let stick = try stick()
        let directory = try temp.make("library")
        let first = try run("0.0 tap play\n4.0 tap play\n5.0 end", library: try Library(directory: directory), stick: stick)
        #expect(first.output.finalState.transport == .paused)
        // Saved where PAUSE was pressed (the audio side then ramps out over 240 frames).
        let paused = try #require(try Library(directory: directory).resume()?.position)
        #expect(abs(first.output.finalState.position - paused) <= 240)
        #expect(paused > 3 * Int64(Self.rate) && paused < 5 * Int64(Self.rate))

        let second = try run("1.0 tap play\n3.0 end", library: try Library(directory: directory))
        let lines = second.output.frames.lines
        #expect(lines.first?.contains("|Counting        |") == true, "\(lines.first ?? "")")
        let restored = try #require(lines.first { $0.contains("Count ") })
        #expect(restored.contains("|▶ 1/1 Count     |0:0\(paused / Int64(Self.rate))/0:30"), "\(restored)")
        // After the ramp in, the output is the source from the saved frame on, sample for sample.
        let start = TwinScenarioTests.boundary(after: 1.060)
        let ramp = 240
        for k in stride(from: ramp, to: Self.rate, by: 97) {
            let i = (start + k) * 2
            #expect(TwinScenarioTests.decode(second.samples[i], second.samples[i + 1]) == Int(paused) + k)
        }
    }

    @Test func aLoopSetOnTheDeviceIsThereAfterARestart() throws {
        let stick = try stick()
        let directory = try temp.make("library")
        _ = try run("0.0 tap play\n2.0 tap loop\n4.0 tap loop\n5.0 end", library: try Library(directory: directory), stick: stick)
        let second = try run("1.0 end", library: try Library(directory: directory))
        guard case .ab(let loop) = second.output.finalState.loop else {
            Issue.record("no A-B loop after the restart: \(second.output.finalState.loop)")
            return
        }
        // Marked where the presses were heard: the output frames of 2 s and 4 s, the music
        // having started at the period boundary after PLAY's release.
        let start = Int64(TwinScenarioTests.boundary(after: 0.060))
        #expect(loop == ABLoop(a: 2 * Int64(Self.rate) - start, b: 4 * Int64(Self.rate) - start))
    }

    /// The stick's part in a fresh library, no count-in, the twin's output heard 2,400
    /// frames (50 ms) after it is rendered, as a device's buffer holds it.
    private func heardRig() throws -> (Appliance, TwinAudio) {
        let library = try Library(directory: try temp.make("library"))
        #expect(Importer(library: library).run(try stick()) { _ in }.added == 1)
        var configuration = Appliance.Configuration()
        configuration.settings.countdown = 0
        let appliance = try Appliance(configuration, library: library)
        let twin = try #require(appliance.audio as? TwinAudio)
        twin.latencyFrames = 2_400
        return (appliance, twin)
    }

    /// The screen as heard: drawn at an instant while the music plays, it shows the position
    /// the output sounds then (the device's buffer in between), not the one the audio side
    /// last reported, which is a buffer ahead. The daemon's loop draws it so and sleeps
    /// until the next second is heard, instead of being woken by the render thread.
    @Test func theScreenAtAnInstantShowsThePositionHeardThen() throws {
        let (appliance, twin) = try heardRig()
        appliance.send(.buttonPressed(.play))
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 128)
        defer { buffer.deallocate() }
        // Until the position reported is 1,000 frames into the third second: 1,400 frames
        // before that sound then.
        while appliance.state.position < 2 * Int64(Self.rate) + 1_000 {
            appliance.render(into: buffer, frames: 128)
        }
        let instant = (twin.clock - 1) * 1_000_000_000 / Int64(Self.rate) + 1
        let heard = try #require(appliance.heardPosition(at: instant))
        #expect(heard == twin.heard(at: instant)?.sourceFrame)
        #expect((2_400...2_402).contains(appliance.state.position - heard), "\(appliance.state.position - heard)")
        func clockRow(_ frame: Frame) -> String { String(decoding: frame.row(1), as: UTF8.self) }
        #expect(clockRow(appliance.frame).contains("0:02/0:30"), "\(clockRow(appliance.frame))")
        #expect(clockRow(appliance.frame(at: instant)).contains("0:01/0:30"), "\(clockRow(appliance.frame(at: instant)))")
        // Paused, the core's position stands.
        appliance.send(.buttonPressed(.play))
        #expect(appliance.heardPosition(at: instant) == nil)
    }

    /// When the screen drawn as heard next changes: the next second as it will sound, and a
    /// loop's wrap already rendered (the audio side ahead by its buffer) when it will sound,
    /// found in the play history, not at the second the music before it would have reached.
    @Test func theNextChangeHeardIsTheNextSecondOrAWrapAlreadyRendered() throws {
        let (appliance, twin) = try heardRig()
        let rate = Int64(Self.rate)
        func instant(ofOutput frame: Int64) -> Int64 { frame * 1_000_000_000 / rate + 1 }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 128)
        defer { buffer.deallocate() }
        appliance.send(.buttonPressed(.play))
        while appliance.state.position < rate / 2 { appliance.render(into: buffer, frames: 128) }
        // Playing on: the next change is the time 0:01 is heard, within the margin.
        let now = instant(ofOutput: twin.clock - 1)
        let due = try #require(appliance.nextHeardChange(after: now, shown: appliance.frame(at: now)))
        while instant(ofOutput: twin.clock - 1) <= due { appliance.render(into: buffer, frames: 128) }
        #expect(try #require(appliance.heardPosition(at: due)) >= rate)
        #expect(try #require(appliance.heardPosition(at: due - 2_000_000)) < rate)
        // An A-B loop of 0.7 s from here (marked where heard), then the wrap rendered, not heard yet.
        let a = try #require(appliance.heardPosition(at: instant(ofOutput: twin.clock - 1)))
        appliance.control(.buttonPressed(.loop), at: instant(ofOutput: twin.clock - 1))
        while appliance.heardPosition(at: instant(ofOutput: twin.clock - 1)) ?? 0 < a + rate * 7 / 10 {
            appliance.render(into: buffer, frames: 128)
        }
        appliance.control(.buttonPressed(.loop), at: instant(ofOutput: twin.clock - 1))
        var checked = false
        for _ in 0..<2_000 where !checked {
            appliance.render(into: buffer, frames: 128)
            let at = instant(ofOutput: twin.clock - 1)
            guard let heard = appliance.heardPosition(at: at), heard > appliance.state.position else { continue }
            // Wrapped in the output already rendered, still before it in what sounds.
            let due = try #require(appliance.nextHeardChange(after: at, shown: appliance.frame(at: at)))
            #expect(due - at < 2_400 * 1_000_000_000 / rate + 2_000_000, "within the latency: \(due - at) ns")
            #expect(try #require(appliance.heardPosition(at: due)) < heard, "wrapped when due")
            #expect(try #require(appliance.heardPosition(at: due - 2_000_000)) >= heard, "not before")
            checked = true
        }
        #expect(checked, "no wrap rendered ahead of what sounds: loop \(appliance.state.loop), a \(a), at \(appliance.state.position)")
    }

    /// The screens handed ahead to the LCD's thread: each the screen drawn as heard at its
    /// time once the music gets there (the next seconds here), none while a command is not
    /// yet heard, and none at or past the loop's end, where the wrap comes first.
    @Test func theScreensHandedAheadAreTheOnesHeardAtTheirTimesAndStopBeforeALoopsEnd() throws {
        let (appliance, twin) = try heardRig()
        let rate = Int64(Self.rate)
        func instant(ofOutput frame: Int64) -> Int64 { frame * 1_000_000_000 / rate + 1 }
        func clockRow(_ frame: Frame) -> String { String(decoding: frame.row(1), as: UTF8.self) }
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 2 * 128)
        defer { buffer.deallocate() }
        appliance.send(.buttonPressed(.play))
        while appliance.state.position < rate / 2 { appliance.render(into: buffer, frames: 128) }
        var now = instant(ofOutput: twin.clock - 1)
        let upcoming = appliance.upcomingFrames(after: now, until: now + 3_000_000_000, shown: appliance.frame(at: now))
        #expect(upcoming.map { clockRow($0.frame).prefix(4) } == ["0:01", "0:02", "0:03"], "\(upcoming.map { clockRow($0.frame) })")
        // Each is the screen drawn as heard at its time, and not yet a little before it.
        for (time, frame) in upcoming {
            while instant(ofOutput: twin.clock - 1) <= time { appliance.render(into: buffer, frames: 128) }
            #expect(appliance.frame(at: time) == frame, "\(clockRow(appliance.frame(at: time))) at \(time), handed \(clockRow(frame))")
            #expect(appliance.frame(at: time - 2_000_000) != frame)
        }
        #expect(appliance.upcomingFrames(after: now, until: now + 1, shown: appliance.frame(at: now)).isEmpty)
        // An A-B loop of 1.5 s from here: nothing is handed at or past B.
        now = instant(ofOutput: twin.clock - 1)
        let a = try #require(appliance.heardPosition(at: now))
        appliance.control(.buttonPressed(.loop), at: now)
        while appliance.heardPosition(at: instant(ofOutput: twin.clock - 1)) ?? 0 < a + rate * 3 / 2 {
            appliance.render(into: buffer, frames: 128)
        }
        now = instant(ofOutput: twin.clock - 1)
        appliance.control(.buttonPressed(.loop), at: now)
        guard case .ab(let loop) = appliance.state.loop else {
            Issue.record("no A-B loop: \(appliance.state.loop)")
            return
        }
        // Sent, not heard yet: nothing is handed ahead.
        #expect(appliance.upcomingFrames(after: now, until: now + 3_000_000_000, shown: appliance.frame(at: now)).isEmpty)
        // Heard, back at A: the seconds up to B, not past it.
        var handed: [(time: Int64, frame: Frame)] = []
        for _ in 0..<4_000 where handed.isEmpty {
            appliance.render(into: buffer, frames: 128)
            now = instant(ofOutput: twin.clock - 1)
            guard let heard = appliance.heardPosition(at: now), heard < loop.b - rate else { continue }
            handed = appliance.upcomingFrames(after: now, until: now + 3_000_000_000, shown: appliance.frame(at: now))
        }
        #expect(!handed.isEmpty, "nothing handed in the loop \(loop)")
        let b = try #require(appliance.heardPosition(at: now)) + (handed.last.map { $0.time - now } ?? 0) * rate / 1_000_000_000
        #expect(b < loop.b, "a screen handed at \(b), past B (\(loop.b))")
    }

    /// The daemon's path: the import runs on a worker thread; the control loop waits on the
    /// runner's descriptor with poll() (no sleeping) and keeps handling events meanwhile.
    @Test func aThreadedImportReportsThroughItsDescriptor() throws {
        let stick = try stick()
        let library = try Library(directory: try temp.make("library"))
        let runner = try ThreadedImportRunner(importer: Importer(library: library))
        var configuration = Appliance.Configuration()
        configuration.settings.autoImport = true
        let appliance = try Appliance(configuration, library: library, importer: runner)
        appliance.stickInserted(stick)
        #expect(appliance.state.importing != nil)
        var progress: [Int] = []
        while appliance.state.importing != nil {
            var fd = pollfd(fd: runner.fileDescriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&fd, 1, 30_000) == 1)
            appliance.pollImport()
            if let p = appliance.state.importing?.percent { progress.append(p) }
        }
        #expect(!runner.isRunning)
        #expect(appliance.state.routine?.title == "Counting")
        #expect(appliance.state.notice?.notice.lines == ["Stick found", "1 routine"])
        #expect(appliance.state.pendingNotices.last?.lines == ["Import done", "1 new"])
        #expect(progress.count >= 2 && progress == progress.sorted(), "\(progress)")
    }

    /// The daemon's journal names each write to the library before it starts and once it is
    /// durable, with what it writes (Tests/System/power-cut.sh's daemon workload judges a
    /// cut library by these lines): the volume gesture's settings, then the place at shutdown.
    @Test func withLogsSavesEachWriteIsLoggedBeforeAndAfter() throws {
        let stick = try stick()
        let library = try Library(directory: try temp.make("library"))
        #expect(Importer(library: library).run(stick) { _ in }.added == 1)
        var configuration = Appliance.Configuration()
        configuration.settings.volume = 50
        configuration.settings.countdown = 0
        let appliance = try Appliance(configuration, library: library)
        let log = CollectedLines()
        appliance.log = { log.lines.append($0) }
        appliance.logsSaves = true
        appliance.send(.encoderTurnedHolding(.play, 1))
        appliance.advance(to: 5_000_000_000)
        appliance.send(.shuttingDown)
        let settings = "settings countdown=0 countdownBeforeRepeat=0 atPartEnd=stop volume=55 autoImport=0"
            + " loopPause=0 loopPasses=0 lightIdle=0 countdownBeats=0 loopSnap=beat turnBy=seconds countVoice=ticks"
            + " stopFade=0"
        let place = "resume \"Counting\" part 1 \"Count\" frame 0"
        #expect(log.lines == ["saving: \(settings)", "saved: \(settings)", "saving: \(place)", "saved: \(place)"])
        #expect(try library.settings()?.volume == 55)
        #expect(try library.resume()?.partTitle == "Count")
    }

    /// A save of the parts made on the box logs every value it writes — each part's title,
    /// audio, cut, loop in force, named loops and moves, in frames — so that the power-cut
    /// run can judge a cut library's parts by the journal (Tests/System/power_log.py).
    @Test func withLogsSavesAPartsSaveNamesEveryValueItWrites() throws {
        let stick = try stick()
        let library = try Library(directory: try temp.make("library"))
        #expect(Importer(library: library).run(stick) { _ in }.added == 1)
        var configuration = Appliance.Configuration()
        configuration.settings.countdown = 0
        configuration.settings.loopSnap = .off
        let appliance = try Appliance(configuration, library: library)
        let log = CollectedLines()
        appliance.log = { log.lines.append($0) }
        appliance.logsSaves = true
        appliance.send(.encoderTurned(5))   // paused: to 0:05
        appliance.send(.editRequested(.split))
        appliance.send(.encoderTurned(2))   // 0:02 of the second piece
        appliance.send(.buttonPressed(.loop))
        appliance.send(.encoderTurned(1))
        appliance.send(.buttonPressed(.loop))
        appliance.send(.editRequested(.nameLoop("Intro")))
        appliance.send(.editRequested(.addMove("Spin", at: 24_000)))
        appliance.send(.editRequested(.rename("Chorus")))
        let audio = try #require(library.storedRoutines().first?.routine.parts.first?.audio.id)
        let head = "saved: parts \"Counting\" made on the box: 2 parts,"
        let first = "\"Count\" \(audio) cut 0-240000; "
        let loop = "loop 96000-144000 named \"Intro\" 96000-144000"
        #expect(log.lines.filter { $0.hasPrefix("saved: parts") } == [
            head + " 0 moves, 0 named loops: " + first + "\"Count 2\" \(audio) cut 240000-1440000",
            head + " 0 moves, 1 named loops: " + first + "\"Count 2\" \(audio) cut 240000-1440000 " + loop,
            head + " 1 moves, 1 named loops: " + first + "\"Count 2\" \(audio) cut 240000-1440000 " + loop
                + " move \"Spin\" \"Spin\" at 24000",
            head + " 1 moves, 1 named loops: " + first + "\"Chorus\" \(audio) cut 240000-1440000 " + loop
                + " move \"Spin\" \"Spin\" at 24000",
        ])
        // What the line says is what the library holds.
        let parts = try #require(library.storedRoutines().first?.routine.parts)
        #expect(parts.map(\.title) == ["Count", "Chorus"])
        #expect(parts.map(\.range) == [0..<240_000, 240_000..<1_440_000])
        #expect(parts[1].savedLoop == ABLoop(a: 96_000, b: 144_000))
        #expect(parts[1].loops == [NamedLoop(name: "Intro", loop: ABLoop(a: 96_000, b: 144_000))])
        #expect(parts[1].moves.map(\.cue) == [24_000])
    }
}

/// Log lines an appliance's closure appends to.
private final class CollectedLines {
    var lines: [String] = []
}
