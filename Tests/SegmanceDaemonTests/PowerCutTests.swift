import Foundation
import Glibc
import SegmanceBoard
import SegmanceCore
@testable import SegmanceDaemon
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing

/// The place survives a power cut: the daemon, playing, is killed with SIGKILL 40 s of audio
/// into a part; the resume point the library holds is within 30 s of where the music was,
/// and a daemon started again on that library comes back there.
///
/// The daemon runs in a child process (this test bundle again, running `PowerCutChild`),
/// with the real engine on an ALSA `file` PCM whose file is a FIFO this test reads: the
/// device is fast (a `null` slave) but can go no further than what is read, so "40 s into
/// the part" is counted in audio frames, not on a clock. The pedal is a FIFO in a folder
/// standing in for /dev/input, the LCD the terminal display written to another FIFO.
@Suite(.tags(.integration), .serialized) struct PowerCutTests {
    static let rate = 48_000
    static let partSeconds = 60
    static let cutSeconds = 40

    @Test func aCutFortySecondsIntoAPartLosesLessThanThirtySeconds() throws {
        let folders = TempDirs()
        let dir = try folders.make("powercut")
        let stick = dir + "/stick", library = dir + "/library"
        try TestFiles.mkdir(stick)
        try TestFiles.mkdir(stick + "/Long")
        try TestFiles.write(TestFiles.sine(frequency: 440, rate: Self.rate, frames: Self.partSeconds * Self.rate),
                            to: stick + "/Long/01 Long.wav")
        #expect(Importer(library: try Library(directory: library)).run(stick) { _ in }.added == 1)

        let audioFIFO = dir + "/audio.fifo", screenFIFO = dir + "/screen.fifo"
        #expect(mkfifo(audioFIFO, 0o600) == 0 && mkfifo(screenFIFO, 0o600) == 0)
        // The read ends first: the child's writers then open without waiting.
        let audio = open(audioFIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        let screen = open(screenFIFO, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        #expect(audio >= 0 && screen >= 0)
        defer { close(audio); close(screen) }
        let inputs = FakeInputDirectory()
        inputs.plug("event0")

        let bundle = CommandLine.arguments[0]
        let child = try spawnChild(bundle, environment: [
            "SEGMANCE_POWER_CUT_CHILD=1", "POWER_CUT_LIBRARY=\(library)", "POWER_CUT_MEDIA=\(dir)",
            "POWER_CUT_INPUTS=\(inputs.path)", "POWER_CUT_AUDIO=\(audioFIFO)", "POWER_CUT_SCREEN=\(screenFIFO)",
        ], output: dir + "/child.txt")
        var killed = false
        defer { if !killed { kill(child, SIGKILL); _ = waitFor(child) } }

        let lcd = FIFOLines(screen)
        // The daemon draws its first screen once it is ready: the pedal is watched by then.
        #expect(try lcd.wait(seconds: 60) { $0.contains("1/1 Long") }, "child: \(Self.text(dir + "/child.txt"))")
        inputs.key("event0", code: 25, down: true)   // KEY_P: PLAY
        inputs.key("event0", code: 25, down: false)

        // Read the device's output: silence, then the part from its start (no countdown);
        // stop reading 40 s of audio after the music began. The render thread can then get
        // no further than the FIFO's and the device's buffers.
        let reader = AudioReader(audio)
        let musicAt = try #require(reader.readUntilSound(limitFrames: 3600 * Self.rate), "no music after PLAY")
        try reader.read(until: musicAt + Int64(Self.cutSeconds * Self.rate))
        // The control loop has seen where the render thread stopped when the LCD shows 0:39.
        #expect(try lcd.wait(seconds: 60) { $0.contains("0:39/1:00") || $0.contains("0:40/1:00") })
        kill(child, SIGKILL)
        #expect(waitFor(child) == 128 + SIGKILL)
        killed = true

        // Where the music was: the frames read since it began, plus at most what the FIFO
        // (64 KiB) and the device's buffer held when the render thread stopped.
        let was = Int64(Self.cutSeconds * Self.rate)
        let slack = Int64(65_536 / 4 + 8 * 1024)
        let resume = try #require(try Library(directory: library).snapshot().resume, "no resume point after the cut")
        #expect(resume.routine == "Long" && resume.part == 0)
        #expect(resume.position > 0, "nothing was written while playing")
        #expect(resume.position <= was + slack, "the place is after where the music was")
        #expect(was - resume.position < Int64(Rules.resumeSaveSeconds) * Int64(Self.rate),
                "\(Double(was - resume.position) / Double(Self.rate)) s lost")
        let resumeSeconds = Double(resume.position) / Double(Self.rate)
        print("power cut: killed at \(Self.cutSeconds) s of audio, resume point at \(resumeSeconds) s")

        // Started again on the same library: the daemon comes back to that place.
        let profile = try BoardProfile(parsing: DaemonLoopTests.profileText, file: "test.toml")
        var environment = Daemon.Environment { _, _ in StandInAudio(engine: RecordingAudioEngine()) }
        environment.log = Log { _ in }
        environment.terminal = { _ in }
        let again = try DaemonThread(Daemon(
            configuration: DaemonConfiguration(board: "test.toml", library: library,
                                               mediaRoot: try folders.make("media")),
            profile: profile, environment: environment))
        #expect(again.stop())
        #expect(again.daemon.state.routine?.title == "Long")
        #expect(again.daemon.state.position == resume.position)
    }

    static func text(_ path: String) -> String { (try? String(contentsOfFile: path, encoding: .utf8)) ?? "" }

    /// Starts this test bundle running only `PowerCutChild`, output to `output`.
    func spawnChild(_ bundle: String, environment: [String], output: String) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = cStrings([bundle, "--testing-library", "swift-testing", "--filter", "PowerCutChild"])
        var inherited: [String] = []
        var entry = environ
        while let pointer = entry.pointee {
            inherited.append(String(cString: pointer))
            entry += 1
        }
        var env = cStrings(inherited + environment)
        defer { (argv + env).forEach { free($0) } }
        var pid: pid_t = 0
        let code = posix_spawn(&pid, bundle, &actions, nil, argv, &env)
        guard code == 0 else { throw TestFailure("posix_spawn \(bundle): \(String(cString: strerror(code)))") }
        return pid
    }
}

/// The daemon of `PowerCutTests`, in the child process it starts: runs until killed.
@Suite(.tags(.integration)) struct PowerCutChild {
    static let variables = ProcessInfo.processInfo.environment

    @Test(.enabled(if: variables["SEGMANCE_POWER_CUT_CHILD"] != nil,
                   "runs only in the child process PowerCutTests starts and kills"))
    func theDaemonPlaysUntilItIsKilled() throws {
        let v = Self.variables
        let inputs = v["POWER_CUT_INPUTS"]!
        let profile = try BoardProfile(parsing: """
            name = "power cut"
            [[input]]
            device = "Test Pedal"
            keys = { KEY_P = "play" }
            [display]
            kind = "terminal"
            columns = 16
            rows = 2
            [audio]
            device = "file:FILE=\(v["POWER_CUT_AUDIO"]!),FORMAT=raw"
            format = "S16_LE"
            period_frames = 1024
            periods = 2
            """, file: "power-cut.toml")
        let screen = open(v["POWER_CUT_SCREEN"]!, O_WRONLY | O_CLOEXEC)
        var environment = Daemon.Environment { audio, _ in
            try RealtimeAudio(audio, priority: 0, lockMemory: false)
        }
        environment.paths.inputDevices = inputs
        environment.paths.nameReader = { path in path.hasPrefix(inputs + "/event") ? "Test Pedal" : nil }
        environment.log = Log { print("daemon: \($0)") }
        environment.terminal = { text in
            let line = Array((text.replacingOccurrences(of: "\n", with: " ") + "\n").utf8)
            _ = write(screen, line, line.count)
        }
        let configuration = DaemonConfiguration(board: "power-cut.toml", library: v["POWER_CUT_LIBRARY"]!,
                                                mediaRoot: v["POWER_CUT_MEDIA"]!)
        try Daemon(configuration: configuration, profile: profile, environment: environment).run()
    }
}

/// Lines written into a FIFO, read on a thread of their own.
final class FIFOLines: @unchecked Sendable {
    let transcript = Transcript()

    init(_ fd: Int32) {
        let transcript = self.transcript
        Thread {
            var pending: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 4096)
            while true {
                var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
                guard poll(&entry, 1, 120_000) > 0 else { return }
                let n = read(fd, &chunk, chunk.count)
                if n < 0 && errno == EAGAIN { continue }
                // The writer closed (the child died) or the FIFO went away.
                guard n > 0 else { return }
                pending += chunk[0..<n]
                while let newline = pending.firstIndex(of: 10) {
                    transcript.append(String(decoding: pending[..<newline], as: UTF8.self))
                    pending.removeSubrange(...newline)
                }
            }
        }.start()
    }

    /// Waits until a line satisfies `match`.
    func wait(seconds: Double, for match: (String) -> Bool) throws -> Bool {
        transcript.wait(seconds: seconds, for: match)
    }
}

/// Reads S16_LE stereo frames from the audio FIFO, as fast as they come, up to a limit.
final class AudioReader {
    let fd: Int32
    private(set) var frames: Int64 = 0
    private var partial: [UInt8] = []

    init(_ fd: Int32) { self.fd = fd }

    /// Reads until a frame that is not silent; its index, or nil past `limitFrames`.
    func readUntilSound(limitFrames: Int) -> Int64? {
        var found: Int64?
        while found == nil, frames < Int64(limitFrames) {
            guard let chunk = next(maxFrames: 4096) else { return nil }
            for f in 0..<(chunk.count / 4) where chunk[f * 4] != 0 || chunk[f * 4 + 1] != 0
                || chunk[f * 4 + 2] != 0 || chunk[f * 4 + 3] != 0 {
                found = frames - Int64(chunk.count / 4) + Int64(f)
                break
            }
        }
        return found
    }

    /// Reads until exactly `total` frames were read in all.
    func read(until total: Int64) throws {
        while frames < total {
            guard next(maxFrames: Int(min(4096, total - frames))) != nil else {
                throw TestFailure("the audio FIFO ended at frame \(frames)")
            }
        }
    }

    /// Up to `maxFrames` whole frames, waiting at most 60 s for the writer; nil at its end.
    private func next(maxFrames: Int) -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: maxFrames * 4 - partial.count)
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&entry, 1, 60_000) > 0 else { return nil }
            let n = Glibc.read(fd, &buffer, buffer.count)
            if n < 0 && errno == EAGAIN { continue }
            guard n > 0 else { return nil }
            let bytes = partial + buffer[0..<n]
            let whole = bytes.count / 4 * 4
            partial = Array(bytes[whole...])
            frames += Int64(whole / 4)
            return Array(bytes[..<whole])
        }
    }
}
