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
///   process of its own, into a fresh library: × real time (wall clock, process start
///   included) beside libsndfile decoding the same file alone, and the importing process's
///   peak resident memory (its VmHWM, the kernel's high-water mark, sampled every
///   millisecond) beside the same binary listing the library it made. Budgets: ≥ 200× real time, ≤ 20 MB (the
///   daemon's resident budget).
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
        let check = CommandLine.arguments.contains("--check")
        let dir = option("dir", "/tmp/segmance-bench-big-stick-\(getpid())")
        let sibling = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("segmance").path
        let binary = option("segmance", sibling)
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            fail("no segmance binary at \(binary) (build it: swift build -c release, or --segmance PATH)")
        }
        try? FileManager.default.removeItem(atPath: dir)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var missed: [String] = []

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
        if scan > scanBudget { missed.append("scan \(format(scan, 2)) s > \(scanBudget) s") }

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
            let library = "\(dir)/library-\(i)"
            let run = spawn(binary, ["import", subset, "--library", library])
            precondition(run.status == 0, "segmance import \(subset) exited \(run.status)")
            let list = spawn(binary, ["library", "list", "--library", library])
            precondition(list.status == 0, "segmance library list exited \(list.status)")
            let speed = Double(partSeconds) / run.wall
            let pad = String(repeating: " ", count: max(0, 20 - f.name.count))
            print("    \(f.name):\(pad) \(Int(speed))x real time (\(format(run.wall, 2)) s wall; budget \(Int(importBudget))x), "
                  + "libsndfile decode alone \(Int(Double(partSeconds) / decode))x; peak RSS \(format(run.peakMB, 1)) MB "
                  + "(budget \(Int(memoryBudgetMB)) MB; the same binary listing the library: \(format(list.peakMB, 1)) MB)")
            if speed < importBudget { missed.append("\(f.name) import \(Int(speed))x < \(Int(importBudget))x") }
            if run.peakMB > memoryBudgetMB { missed.append("\(f.name) import peak RSS \(format(run.peakMB, 1)) MB > \(Int(memoryBudgetMB)) MB") }
        }
        if missed.isEmpty {
            print("big stick: every figure within its budget")
        } else {
            print("big stick: MISSED: " + missed.joined(separator: "; "))
            if check { exit(1) }
        }
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
        guard let dir = opendir(root) else { return 0 }
        defer { closedir(dir) }
        var count = 0
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name == "." || name == ".." { continue }
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
        var pause = timespec(tv_sec: 0, tv_nsec: 1_000_000)
        while waitpid(pid, &status, WNOHANG) == 0 {
            peakKB = max(peakKB, highWaterKB(pid))
            nanosleep(&pause, nil)
        }
        let wall = wallSeconds() - start
        let exited = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        return (exited, wall, Double(peakKB) / 1024)
    }

    /// VmHWM of a running process, in kB (0 once it has exited).
    static func highWaterKB(_ pid: pid_t) -> Int {
        let fd = open("/proc/\(pid)/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return 0 }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard n > 0 else { return 0 }
        let text = String(decoding: bytes[..<n], as: UTF8.self)
        guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }) else { return 0 }
        return Int(line.split(whereSeparator: { $0 == " " || $0 == "\t" }).dropFirst().first ?? "") ?? 0
    }
}
