import LinuxSystem
import Foundation
import SegmanceMedia
import SndFile

/// A big stick, as a teacher's stick looks after a season: 300 routines and 3,000 files, most
/// of them not audio (photos, documents, a Mac's AppleDouble sidecars).
///
///     segmance-bench big-stick [--check] [--segmance PATH] [--dir DIR]
///
/// - The scan the daemon runs when a stick appears (`StickScanner`: routine folders, their
///   audio and manifests, debris skipped, links checked) beside `find` over the same tree
///   and a plain readdir + lstat walk in this process, best of five each. Budget 2 s.
/// - Import of one routine a format (a 3-minute part) by the real `segmance import` in a
///   process of its own, into a fresh library, best of 3 (5 with `--check`): × real time (wall clock, process start
///   included) beside libsndfile decoding the same file alone, and the importing process's
///   peak resident memory (its VmHWM, the kernel's high-water mark, sampled every
///   millisecond) beside the same binary listing the library it made. Budgets: ≥ 200× real time, ≤ 20 MB (the
///   daemon's resident budget).
/// - The daemon (`segmance run`) importing one routine a format: its resident memory at rest
///   and at most during the import (budget 20 MB), and, apart, the peak of the child process
///   it imports in (`segmance import-worker`, its VmHWM sampled every millisecond).
///
/// `--check` exits 1 when a figure misses its budget.
enum BigStickBench {
    static let routines = 300
    static let scanBudget = 2.0
    static let importBudget = 200.0
    static let memoryBudgetMB = 20.0
    static let partSeconds = 180

    struct Format {
        var name: String
        var format: SoundFileWriteFormat
        var rate: Int
        var ext: String
    }

    static let formats: [Format] = [
        Format(name: "WAV 16-bit 44.1 kHz", format: .wavPCM16, rate: 44_100, ext: "wav"),
        Format(name: "FLAC 44.1 kHz", format: .flac16, rate: 44_100, ext: "flac"),
        Format(name: "Ogg Vorbis 44.1 kHz", format: .oggVorbis, rate: 44_100, ext: "ogg"),
        Format(name: "Opus 48 kHz", format: .opus, rate: 48_000, ext: "opus"),
        Format(name: "MP3 44.1 kHz", format: .mp3, rate: 44_100, ext: "mp3"),
        Format(name: "AIFF 48 kHz", format: .aiffPCM16, rate: 48_000, ext: "aiff"),
    ]

    static func run() {
        let dir = option("dir", "/tmp/segmance-bench-big-stick-\(getpid())")
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("segmance").path
        let binary = option("segmance", sibling)
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            fail("no segmance binary at \(binary) (build it: swift build -c release, or --segmance PATH)")
        }
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }

        let sources = makeSources(dir: dir + "/sources")
        let stick = dir + "/stick"
        let files = makeStick(stick, sources: sources, dir: dir)

        // The scan, best of five: the tree is in the page cache after the first pass, as it
        // is after the kernel has read a stick's directories once.
        var scan = Double.infinity, found = 0
        for _ in 0..<5 {
            let start = wallSeconds()
            let result = StickScanner().scan(stick)
            scan = min(scan, wallSeconds() - start)
            found = result.routines.count
            precondition(result.problems.isEmpty, "the big stick has problems: \(result.problems.prefix(3))")
        }
        precondition(found == routines, "the scan found \(found) routines, not \(routines)")
        var findTime = Double.infinity, walkTime = Double.infinity, walked = 0
        for _ in 0..<5 {
            let start = wallSeconds()
            precondition(system("find '\(stick)' > /dev/null") == 0)
            findTime = min(findTime, wallSeconds() - start)
            let walkStart = wallSeconds()
            walked = walk(stick)
            walkTime = min(walkTime, wallSeconds() - walkStart)
        }
        precondition(walked == files, "the walk found \(walked) files, not \(files)")
        print("big stick: \(routines) routines, \(files) files (\(routines * 2) audio, \(routines) manifests, "
              + "\(files - routines * 3) photos, documents and AppleDouble sidecars), \(routines) more folders")
        print("  scan as the daemon does when it appears (StickScanner), best of 5: \(format(scan * 1000, 1)) ms "
              + "(budget \(Int(scanBudget * 1000)) ms); peers: find \(format(findTime * 1000, 1)) ms "
              + "(a process), readdir + lstat walk \(format(walkTime * 1000, 1)) ms (in process)")
        BenchBudget.record(BenchFigure(what: "big stick: scan of \(routines) routines, \(files) files (StickScanner), best of 5",
                                       figure: "\(format(scan * 1000, 1)) ms", budget: "≤ \(Int(scanBudget * 1000)) ms", met: scan <= scanBudget,
                                       peer: "find \(format(findTime * 1000, 1)) ms, readdir + lstat walk \(format(walkTime * 1000, 1)) ms"))

        print("  import, one routine a format (a \(partSeconds) s stereo part), `segmance import` into a fresh library "
              + "(\(binary)):")
        for (i, f) in formats.enumerated() {
            let subset = "\(dir)/subset-\(i)"
            let folder = subset + "/Routine \(f.ext)"
            try! FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try! FileManager.default.linkItem(atPath: sources[i], toPath: folder + "/01 Song.\(f.ext)")
            // The peer: libsndfile alone, decoding the same file to float.
            let decodeStart = wallSeconds()
            let reader = try! SoundFile(readingFrom: sources[i])
            _ = try! reader.readAllFloat()
            let decode = wallSeconds() - decodeStart
            // Best of `importRuns` (3; 5 with --check), each into a fresh library: the fastest
            // wall time, the highest peak.
            var run = (status: Int32(0), wall: Double.infinity, peakMB: 0.0)
            var library = ""
            for attempt in 0..<importRuns {
                library = "\(dir)/library-\(i)-\(attempt)"
                let one = spawn(binary, ["import", subset, "--library", library])
                precondition(one.status == 0, "segmance import \(subset) exited \(one.status)")
                run = (0, min(run.wall, one.wall), max(run.peakMB, one.peakMB))
            }
            let list = spawn(binary, ["library", "list", "--library", library])
            precondition(list.status == 0, "segmance library list exited \(list.status)")
            let speed = Double(partSeconds) / run.wall
            let pad = String(repeating: " ", count: max(0, 20 - f.name.count))
            print("    \(f.name):\(pad) \(Int(speed))x real time (\(format(run.wall, 2)) s wall; budget \(Int(importBudget))x), "
                  + "libsndfile decode alone \(Int(Double(partSeconds) / decode))x; peak RSS \(format(run.peakMB, 1)) MB, "
                  + "the same binary listing the library \(format(list.peakMB, 1)) MB")
            BenchBudget.record(BenchFigure(what: "big stick: `segmance import` \(f.name), \(partSeconds) s part (process start included), best of \(importRuns)",
                                           figure: "\(Int(speed))x real time", budget: "≥ \(Int(importBudget))x", met: speed >= importBudget,
                                           peer: "libsndfile decode alone \(Int(Double(partSeconds) / decode))x"))
        }
        if let daemon = daemonImport(binary: binary, dir: dir, sources: sources) {
            print("  the daemon importing all \(formats.count) (`segmance run`, auto import, the folder bind-mounted under its media "
                  + "root as the mount helper mounts a stick): resident \(format(daemon.restMB, 1)) MB at rest, peak "
                  + "\(format(daemon.peakMB, 1)) MB during the import (VmRSS every ms; budget \(Int(memoryBudgetMB)) MB), "
                  + "\(format(daemon.afterMB, 1)) MB once it has given the import's code back; of it anonymous (heap, "
                  + "stacks) \(format(daemon.anonRestMB, 1)) MB at rest, \(format(daemon.anonPeakMB, 1)) MB at most; "
                  + "\(Int(Double(partSeconds * formats.count) / daemon.wall))x real time from the mount to the last routine")
            print("    its import worker (`segmance import-worker`, a child process of its own, \(daemon.workers) seen): "
                  + "peak resident \(format(daemon.workerPeakMB, 1)) MB (VmHWM), not counted in the daemon's")
            BenchBudget.record(BenchFigure(what: "big stick: the daemon's resident memory, at rest / peak during the import of all \(formats.count) / after",
                                           figure: "\(format(daemon.restMB, 1)) / \(format(daemon.peakMB, 1)) / \(format(daemon.afterMB, 1)) MB",
                                           budget: "≤ \(Int(memoryBudgetMB)) MB", met: daemon.peakMB <= memoryBudgetMB))
            BenchBudget.record(BenchFigure(what: "big stick: the import worker (child process), peak resident (VmHWM)",
                                           figure: "\(format(daemon.workerPeakMB, 1)) MB", budget: "", met: nil))
        } else {
            print("  the daemon importing: skipped (it needs root, to bind-mount the stick under the media root)")
            if BenchBudget.checking { BenchBudget.require(false, "big stick: the daemon's memory during an import was not measured (run as root)") }
        }
    }

    /// The daemon itself importing a stick of one routine a format: `segmance run` with a
    /// terminal display, ALSA's `null` device and auto import; the stick folder bind-mounted
    /// under its media root (the mount table is what it watches). Its resident memory once
    /// ready (start-up given back), and the most it reaches from the mount until it has logged
    /// every routine added. nil when the bind mount is not allowed (not root).
    static func daemonImport(binary: String, dir: String, sources: [String]) -> (restMB: Double, peakMB: Double, afterMB: Double, anonRestMB: Double, anonPeakMB: Double, wall: Double, workerPeakMB: Double, workers: Int)? {
        let fm = FileManager.default
        let stick = dir + "/daemon-stick", media = dir + "/media", log = dir + "/daemon.log"
        for (i, f) in formats.enumerated() {
            try! fm.createDirectory(atPath: "\(stick)/Routine \(f.ext)", withIntermediateDirectories: true)
            try! fm.linkItem(atPath: sources[i], toPath: "\(stick)/Routine \(f.ext)/01 Song.\(f.ext)")
        }
        try! fm.createDirectory(atPath: media + "/stick", withIntermediateDirectories: true)
        try! "name = \"bench\"\n[display]\nkind = \"terminal\"\n[audio]\ndevice = \"null\"\n"
            .write(toFile: dir + "/board.toml", atomically: true, encoding: .utf8)
        try! """
            board = "board.toml"
            library = "\(dir)/daemon-library"
            media_root = "\(media)"
            stick_status = "\(dir)/stick-status"
            auto_import = true
            realtime_priority = 0

            """.write(toFile: dir + "/segmance.toml", atomically: true, encoding: .utf8)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv = cStrings([binary, "run", "--config", dir + "/segmance.toml"])
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        precondition(posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0, "posix_spawn \(binary) run")
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            _ = system("umount '\(media)/stick' 2> /dev/null")
        }
        func logged(_ text: String) -> Int {
            ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").components(separatedBy: "\n").filter { $0.contains(text) }.count
        }
        var deadline = wallSeconds() + 20
        while logged("ready: ") == 0 {
            precondition(wallSeconds() < deadline, "segmance run was not ready within 20 s: \((try? String(contentsOfFile: log, encoding: .utf8)) ?? "")")
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        var rest = 0, anonRest = 0
        for _ in 0..<100 {
            rest = max(rest, statusKB(pid, "VmRSS:"))
            anonRest = max(anonRest, statusKB(pid, "RssAnon:"))
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        let start = wallSeconds()
        guard system("mount --bind '\(stick)' '\(media)/stick' 2> /dev/null") == 0 else { return nil }
        var peak = 0, anonPeak = 0
        var workerPeak: [pid_t: Int] = [:]
        deadline = start + 300
        while logged(": added") < formats.count {
            precondition(logged("not imported") == 0 && logged("problem") == 0, "the daemon's import failed: see \(log)")
            precondition(wallSeconds() < deadline, "the daemon did not import the stick within 300 s")
            peak = max(peak, statusKB(pid, "VmRSS:"))
            anonPeak = max(anonPeak, statusKB(pid, "RssAnon:"))
            for child in children(pid) { workerPeak[child] = max(workerPeak[child] ?? 0, statusKB(child, "VmHWM:")) }
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        let wall = wallSeconds() - start
        // Once the import has ended the daemon gives the import's code back (nothing plays).
        deadline = wallSeconds() + 10
        while logged("memory: the import's code given back") == 0 {
            precondition(wallSeconds() < deadline, "the daemon did not give the import's code back within 10 s")
            peak = max(peak, statusKB(pid, "VmRSS:"))
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        var after = 0
        for _ in 0..<100 {
            after = max(after, statusKB(pid, "VmRSS:"))
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        return (Double(rest) / 1024, Double(peak) / 1024, Double(after) / 1024, Double(anonRest) / 1024,
                Double(anonPeak) / 1024, wall, Double(workerPeak.values.max() ?? 0) / 1024, workerPeak.count)
    }

    /// One file a format with `partSeconds` of music; the stick's audio are hard links to them
    /// (the scan looks at names and sizes, never at the audio).
    static func makeSources(dir: String) -> [String] {
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return formats.enumerated().map { i, f in
            let path = "\(dir)/source-\(i).\(f.ext)"
            let file = try! SoundFile(writingTo: path, format: f.format, sampleRate: f.rate, channels: 2)
            let music = benchMusic(rate: f.rate, seconds: partSeconds)
            for start in stride(from: 0, to: music.count, by: 8192) {
                try! music[start..<min(music.count, start + 8192)].withUnsafeBufferPointer { try file.write($0) }
            }
            try! file.close()
            return path
        }
    }

    /// 300 routine folders of 10 files each: two audio parts, routine.toml, four photos in a
    /// subfolder, a PDF, a Word document and the AppleDouble sidecar a Mac leaves beside a
    /// part. Returns the number of files.
    static func makeStick(_ stick: String, sources: [String], dir: String) -> Int {
        let fm = FileManager.default
        let others = dir + "/others"
        try! fm.createDirectory(atPath: others, withIntermediateDirectories: true)
        var bytes = [UInt8](repeating: 0, count: 96 * 1024)
        for i in bytes.indices { bytes[i] = UInt8(truncatingIfNeeded: i &* 2_654_435_761 >> 13) }
        for name in ["photo.jpg", "notes.pdf", "costume.docx"] {
            precondition(fm.createFile(atPath: others + "/" + name, contents: Data(bytes)))
        }
        // A real AppleDouble header: magic 0x00051607, version 2, "Mac OS X" filler, two entries.
        var sidecar: [UInt8] = [0x00, 0x05, 0x16, 0x07, 0x00, 0x02, 0x00, 0x00] + Array("Mac OS X        ".utf8) + [0x00, 0x02]
        sidecar += [0, 0, 0, 9, 0, 0, 0, 0x32, 0, 0, 0x0E, 0xB0, 0, 0, 0, 2, 0, 0, 0x0E, 0xE2, 0, 0, 0x01, 0x1E]
        sidecar += [UInt8](repeating: 0, count: 4096 - sidecar.count)
        precondition(fm.createFile(atPath: others + "/sidecar", contents: Data(sidecar)))
        var files = 0
        for r in 0..<routines {
            let folder = String(format: "%@/Routine %03d", stick, r)
            try! fm.createDirectory(atPath: folder + "/Photos", withIntermediateDirectories: true)
            let source = sources[r % sources.count]
            let ext = formats[r % formats.count].ext
            try! fm.linkItem(atPath: source, toPath: folder + "/01 Intro.\(ext)")
            try! fm.linkItem(atPath: source, toPath: folder + "/02 Main.\(ext)")
            try! "title = \"Routine \(r)\"\ncountdown = 3\n".write(toFile: folder + "/routine.toml", atomically: false, encoding: .utf8)
            for p in 1...4 { try! fm.linkItem(atPath: others + "/photo.jpg", toPath: String(format: "%@/Photos/IMG_%04d.jpg", folder, r * 4 + p)) }
            try! fm.linkItem(atPath: others + "/notes.pdf", toPath: folder + "/notes.pdf")
            try! fm.linkItem(atPath: others + "/costume.docx", toPath: folder + "/costume.docx")
            try! fm.linkItem(atPath: others + "/sidecar", toPath: folder + "/._01 Intro.\(ext)")
            files += 10
        }
        return files
    }

    /// Files under `root`, found by readdir and lstat alone: the least any scan must do.
    static func walk(_ root: String) -> Int {
        var count = 0
        for name in (try? Directory(root).names()) ?? [] {
            let path = root + "/" + name
            var info = stat()
            guard lstat(path, &info) == 0 else { continue }
            if info.st_mode & S_IFMT == S_IFDIR { count += walk(path) } else { count += 1 }
        }
        return count
    }

    /// Runs `binary ARGS` with its output to /dev/null; its status, wall time and peak RSS:
    /// VmHWM of /proc/PID/status (the high-water mark of the process's own memory since its
    /// exec), read every millisecond until it exits. Not `ru_maxrss`: the kernel carries the
    /// spawning process's high-water mark across the exec into it, and this benchmark holds
    /// decoded audio.
    static func spawn(_ binary: String, _ arguments: [String]) -> (status: Int32, wall: Double, peakMB: Double) {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        let argv = cStrings([binary] + arguments)
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let start = wallSeconds()
        precondition(posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0, "posix_spawn \(binary)")
        var status: Int32 = 0
        var peakKB = 0
        while waitpid(pid, &status, WNOHANG) == 0 {
            peakKB = max(peakKB, statusKB(pid, "VmHWM:"))
            sleepMonotonic(nanoseconds: 1_000_000)
        }
        let wall = wallSeconds() - start
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exited, wall, Double(peakKB) / 1024)
    }

    /// A memory figure of /proc/PID/status (`VmHWM:`, `VmRSS:`) of a running process, in kB
    /// (0 once it has exited).
    /// The processes `pid` started that are still running (/proc/PID/task/PID/children).
    static func children(_ pid: pid_t) -> [pid_t] {
        let text = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        return text.split(separator: " ").compactMap { pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
    }

    static func statusKB(_ pid: pid_t, _ key: String) -> Int {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return 0 }
        let text = String(decoding: bytes[..<n], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(key) }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }
}
