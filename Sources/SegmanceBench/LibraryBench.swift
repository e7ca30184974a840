import Foundation
import LinuxSystem
import SegmanceCore
import SegmanceLibrary
import SegmanceMedia
import SegmanceAppliance
import SegmanceTwin
import SndFile

func wallSeconds() -> Double {
    Double(monotonicNanoseconds()) / 1e9
}

func format(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }

/// 60 s of something music-like: chords, a beat and noise, so lossy codecs have work to do.
func benchMusic(rate: Int, seconds: Int) -> [Float] {
    let frames = rate * seconds
    var out = [Float](repeating: 0, count: frames * 2)
    var noise: UInt32 = 1
    for i in 0..<frames {
        let t = Double(i) / Double(rate)
        let beat = t.truncatingRemainder(dividingBy: 0.5)
        let kick = sin(2 * .pi * 55 * t) * exp(-beat * 12)
        var chord = 0.0
        for f in [220.0, 277.2, 329.6, 440.0] { chord += sin(2 * .pi * f * t) * 0.08 }
        noise = noise &* 1_664_525 &+ 1_013_904_223
        let hiss = Double(Int32(bitPattern: noise)) / Double(Int32.max) * 0.02
        out[2 * i] = Float(kick * 0.5 + chord + hiss)
        out[2 * i + 1] = Float(kick * 0.5 + chord * 0.9 - hiss)
    }
    return out
}

/// SHA-256 throughput: the content hash of every stored file (and of every stick file, to
/// recognise it on the next import).
func benchSHA256() {
    let bytes = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 << 20, alignment: 64)
    defer { bytes.deallocate() }
    for i in 0..<bytes.count { bytes[i] = UInt8(truncatingIfNeeded: i &* 31) }
    var hasher = SHA256()
    let start = wallSeconds()
    hasher.update(UnsafeRawBufferPointer(bytes))
    let digest = hasher.finalize()
    let seconds = wallSeconds() - start
    BenchBudget.record(BenchFigure(what: "SHA-256 (the media store's content hash)", figure: "\(Int(64 / seconds)) MB/s", budget: "", met: nil))
    print("sha256: \(Int(64 / seconds)) MB/s (64 MB in \(format(seconds)) s; a minute of 48 kHz stereo PCM is 11 MB) [\(digest.hex.prefix(8))]")
}

/// `library --only TEXT`: only the import rows whose format's name contains TEXT.
let onlyImports = option("only", "")

/// Whether the import row of format `name` runs (every one without `--only`).
func importSelected(_ name: String) -> Bool { onlyImports.isEmpty || name.contains(onlyImports) }

/// Import speed per format: decode + convert + hash + store + fsync + commit, as × real
/// time (wall clock), next to libsndfile decoding the same file alone (the peer); the
/// formats FFmpeg decodes next to FFmpeg decoding alone. `--check`: each ≥ 200×.
func benchImportPerFormat(dir: String) {
    let seconds = 60
    let budget = 200.0
    let formats: [(name: String, format: SoundFileWriteFormat, rate: Int, ext: String)] = [
        ("WAV 16-bit 48 kHz", .wavPCM16, 48_000, "wav"), ("WAV 16-bit 44.1 kHz", .wavPCM16, 44_100, "wav"),
        ("FLAC 48 kHz", .flac16, 48_000, "flac"), ("FLAC 44.1 kHz", .flac16, 44_100, "flac"),
        ("Ogg Vorbis 44.1 kHz", .oggVorbis, 44_100, "ogg"), ("Opus 48 kHz", .opus, 48_000, "opus"),
        ("MP3 44.1 kHz", .mp3, 44_100, "mp3"), ("AIFF 48 kHz", .aiffPCM16, 48_000, "aiff"),
    ]
    print("import (\(seconds) s stereo file, fresh library; × real time = \(seconds) s / wall time, best of \(importRuns); decoders alone best of 3):")
    for (i, f) in formats.enumerated() where importSelected(f.name) {
        let stick = "\(dir)/import-\(i)/stick"
        let folder = stick + "/Routine"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let path = "\(folder)/song.\(f.ext)"
        let file = try! SoundFile(writingTo: path, format: f.format, sampleRate: f.rate, channels: 2)
        let music = benchMusic(rate: f.rate, seconds: seconds)
        // In blocks: libvorbis takes a whole write on its stack.
        for start in stride(from: 0, to: music.count, by: 8192) {
            try! music[start..<min(music.count, start + 8192)].withUnsafeBufferPointer { try file.write($0) }
        }
        try! file.close()

        // The peer: libsndfile alone, decoding to float. Best of three, as the import.
        let decodeWall = bestOf(3) {
            let reader = try! SoundFile(readingFrom: path)
            _ = try! reader.readAllFloat()
        }
        var importer: Importer!
        var cpu = 0.0
        let wall = bestOf(importRuns) { run in
            // A fresh library each time.
            importer = Importer(library: try! Library(directory: "\(dir)/import-\(i)/lib\(run)"))
            let startCPU = cpuSeconds()
            let summary = importer.run(stick) { _ in }
            cpu = cpuSeconds() - startCPU
            precondition(summary == ImportSummary(added: 1), "import failed: \(summary)")
        }
        // Importing the same stick again: recognised by the SHA-256 of the file's bytes.
        let againStart = wallSeconds()
        let again = importer.run(stick) { _ in }
        let againWall = wallSeconds() - againStart
        precondition(again == ImportSummary(unchanged: 1))
        let pad = String(repeating: " ", count: max(0, 20 - f.name.count))
        print("  \(f.name):\(pad) \(Int(Double(seconds) / wall))x real time (\(format(wall)) s wall, \(format(cpu)) s CPU); "
              + "libsndfile decode alone \(Int(Double(seconds) / decodeWall))x (import/decode = \(format(decodeWall / wall, 2))); "
              + "identical re-import \(format(againWall)) s")
        BenchBudget.record(BenchFigure(what: "import \(f.name), \(seconds) s file, best of \(importRuns)",
                                       figure: "\(Int(Double(seconds) / wall))x real time", budget: "≥ \(Int(budget))x",
                                       met: Double(seconds) / wall >= budget,
                                       peer: "libsndfile decode alone \(Int(Double(seconds) / decodeWall))x"))
    }
    benchImportFFmpegFormats(dir: dir, seconds: seconds, budget: budget)
}

/// Start to ready with 200 routines in the library: open the library (migrations checked),
/// read every routine, the settings and the resume point, restore, map and pre-fault the
/// resumed part, render the first period.
func benchStartToReady(dir: String, binary: String?) {
    let stick = dir + "/ready/stick"
    let libraryPath = dir + "/ready/lib"
    // 200 routines of 4 parts with 3 moves each, cut from 20 different 40 s songs.
    let rate = 48_000
    for song in 0..<20 {
        let path = "\(dir)/ready/song\(song).wav"
        try! FileManager.default.createDirectory(atPath: dir + "/ready", withIntermediateDirectories: true)
        let file = try! SoundFile(writingTo: path, format: .wavPCM16, sampleRate: rate, channels: 2)
        var music = benchMusic(rate: rate, seconds: 40)
        for i in stride(from: 0, to: music.count, by: 2) { music[i] *= Float(song + 1) / 20 }
        try! file.write(music)
        try! file.close()
    }
    for r in 0..<200 {
        let folder = "\(stick)/Routine \(r)"
        try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try! FileManager.default.linkItem(atPath: "\(dir)/ready/song\(r % 20).wav", toPath: folder + "/song.wav")
        var toml = "title = \"Routine \(r)\"\nsubtitle = \"Bench\"\ncountdown = 3\n"
        for p in 0..<4 {
            toml += """
                [[part]]
                title = "Part \(p + 1)"
                file = "song.wav"
                from = \(p * 10)
                to = \(p * 10 + 10)
                loop = { a = 2, b = 6 }
                moves = [
                  { type = "Dance", name = "Step \(p)", note = "count 8" },
                  { type = "Juggle", name = "Cascade", at = 3 },
                  { type = "Transition", name = "Turn", at = "0:07.5" },
                ]

                """
        }
        try! toml.write(toFile: folder + "/routine.toml", atomically: true, encoding: .utf8)
    }
    let library = try! Library(directory: libraryPath)
    let importStart = wallSeconds()
    let summary = Importer(library: library).run(stick) { _ in }
    precondition(summary == ImportSummary(added: 200), "\(summary)")
    print("start-to-ready: library of 200 routines (800 parts, 2400 moves, 20 media files) imported in \(format(wallSeconds() - importStart, 1)) s")
    try! library.apply(.resume(ResumePoint(routine: "Routine 123", part: 2, partTitle: "Part 3", position: 48_000 * 4)))
    try! library.apply(.settings(Settings(countdown: 5, volume: 70)))

    var samples: [Double] = []
    let buffer = UnsafeMutablePointer<Float>.allocate(capacity: 256)
    for _ in 0..<20 {
        let start = wallSeconds()
        let opened = try! Library(directory: libraryPath)
        let appliance = try! Appliance(Appliance.Configuration(), library: opened)
        appliance.advance(to: 0)
        appliance.render(into: buffer, frames: 128)
        samples.append(wallSeconds() - start)
        precondition(appliance.state.routine?.title == "Routine 123" && appliance.state.partIndex == 2)
    }
    buffer.deallocate()
    samples.sort()
    let inProcess = samples[samples.count / 2] * 1000
    print("start-to-ready (in process: open library, read 200 routines + settings + resume, restore, map and pre-fault the part, first period): "
          + "median \(format(inProcess, 1)) ms, max \(format(samples.last! * 1000, 1)) ms over \(samples.count) runs (budget \(Int(readyBudgetMS)) ms)")
    BenchBudget.record(BenchFigure(what: "start to ready in process, 200 routines (median of \(samples.count))",
                                   figure: "\(format(inProcess, 1)) ms", budget: "≤ \(Int(readyBudgetMS)) ms",
                                   met: inProcess <= readyBudgetMS))
    if let binary {
        var runs: [Double] = []
        for _ in 0..<10 {
            let start = wallSeconds()
            let status = system("'\(binary)' library list --library '\(libraryPath)' > /dev/null")
            precondition(status == 0)
            runs.append(wallSeconds() - start)
        }
        runs.sort()
        print("start-to-ready (a process: exec `segmance library list`, Swift runtime, open, read and print 200 routines): "
              + "median \(format(runs[runs.count / 2] * 1000, 1)) ms, max \(format(runs.last! * 1000, 1)) ms over \(runs.count) runs")
        benchDaemonReady(binary: binary, library: libraryPath, dir: dir + "/ready")
    }
}

/// The daemon itself, cold: exec `segmance run` (configuration, board profile, library of
/// 200 routines restored, ALSA opened and the render thread started, display and inputs
/// open) until it tells the service manager `READY=1` on a notify socket, as systemd
/// waits for it. The audio goes to alsa-lib's `null` PCM and the display to the terminal.
func benchDaemonReady(binary: String, library: String, dir: String) {
    try! "name = \"bench\"\n[display]\nkind = \"terminal\"\n[audio]\ndevice = \"null\"\n"
        .write(toFile: dir + "/board.toml", atomically: true, encoding: .utf8)
    try! "board = \"board.toml\"\nlibrary = \"\(library)\"\nmedia_root = \"\(dir)/media\"\nrealtime_priority = 0\n"
        .write(toFile: dir + "/segmance.toml", atomically: true, encoding: .utf8)
    let socketPath = dir + "/notify.socket"
    unlink(socketPath)
    let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(socketPath.utf8)) }
    let bound = withUnsafePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    precondition(bound == 0, "bind \(socketPath)")
    defer { close(fd) }
    var runs: [Double] = []
    for _ in 0..<10 {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = cStrings([binary, "run", "--config", dir + "/segmance.toml"])
        let env = cStrings(["NOTIFY_SOCKET=" + socketPath])
        var pid: pid_t = 0
        let start = wallSeconds()
        precondition(posix_spawn(&pid, binary, &actions, nil, argv, env) == 0)
        var buffer = [UInt8](repeating: 0, count: 256)
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        precondition(poll(&ready, 1, 10_000) == 1, "segmance run sent nothing within 10 s")
        let n = recv(fd, &buffer, buffer.count, 0)
        runs.append(wallSeconds() - start)
        precondition(String(decoding: buffer.prefix(max(0, n)), as: UTF8.self).hasPrefix("READY=1"))
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        while recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) > 0 {}
        posix_spawn_file_actions_destroy(&actions)
        (argv + env).forEach { free($0) }
    }
    runs.sort()
    let median = runs[runs.count / 2] * 1000
    let mpd = MPDStartup.measure(dir: dir + "/mpd", runs: runs.count)
    let peer = mpd.map { "MPD \($0.version) \(format($0.medianMS, 1)) ms (exec `mpd --no-daemon` until its protocol greeting, empty database, null output; median of \(runs.count))" }
        ?? "MPD not measured: \(MPDStartup.missing)"
    print("start-to-ready (the daemon, cold: exec `segmance run` until READY=1 on its notify socket; 200 routines restored, "
          + "ALSA `null` open and the render thread started): median \(format(median, 1)) ms, "
          + "max \(format(runs.last! * 1000, 1)) ms over \(runs.count) runs (budget \(Int(readyBudgetMS)) ms); \(peer)")
    BenchBudget.record(BenchFigure(what: "start to ready, the daemon cold (exec to READY=1), 200 routines (median of \(runs.count))",
                                   figure: "\(format(median, 1)) ms", budget: "≤ \(Int(readyBudgetMS)) ms", met: median <= readyBudgetMS,
                                   peer: mpd.map { "MPD \(format($0.medianMS, 1)) ms (empty database)" } ?? ""))
    if mpd == nil && BenchBudget.checking {
        BenchBudget.require(false, "the peer of start to ready (MPD) was not measured: \(MPDStartup.missing)")
    }
    benchWatchdog(binary: binary, fd: fd, socketPath: socketPath, dir: dir)
}

/// The budget of cold start to ready (docs/budgets.md).
let readyBudgetMS = 150.0

/// A NULL-terminated C string array for `posix_spawn`; free each element.
func cStrings(_ strings: [String]) -> [UnsafeMutablePointer<CChar>?] {
    var array: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    array.append(nil)
    return array
}
