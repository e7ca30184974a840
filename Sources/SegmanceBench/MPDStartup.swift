import LinuxSystem
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The peer of the daemon's start-up, measured in the same run: Debian's `mpd` (installed by
/// deploy/install-bench-deps.sh), cold, from exec to its protocol greeting on a Unix socket,
/// with an empty database and a `null` audio output.
enum MPDStartup {
    static let binary = "/usr/bin/mpd"
    static let missing = "\(binary) is not installed (deploy/install-bench-deps.sh installs it)"

    /// The median start-up over `runs` cold starts, and MPD's version; nil when `mpd` is missing.
    static func measure(dir: String, runs: Int) -> (medianMS: Double, version: String)? {
        guard FileManager.default.isExecutableFile(atPath: binary) else { return nil }
        try? FileManager.default.removeItem(atPath: dir)
        try! FileManager.default.createDirectory(atPath: dir + "/music", withIntermediateDirectories: true)
        let socketPath = dir + "/mpd.socket", conf = dir + "/mpd.conf"
        try! """
            music_directory "\(dir)/music"
            db_file "\(dir)/mpd.db"
            bind_to_address "\(socketPath)"
            log_file "\(dir)/mpd.log"
            zeroconf_enabled "no"
            audio_output {
                type "null"
                name "bench"
            }

            """.write(toFile: conf, atomically: true, encoding: .utf8)
        var times: [Double] = []
        var version = ""
        for _ in 0..<runs {
            unlink(socketPath)
            unlink(dir + "/mpd.db")
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            let argv = cStrings([binary, "--no-daemon", conf])
            defer { argv.forEach { free($0) } }
            var pid: pid_t = 0
            let start = wallSeconds()
            precondition(posix_spawn(&pid, binary, &actions, nil, argv, environ) == 0, "posix_spawn \(binary)")
            let greeting = greetingLine(socketPath, pid: pid, deadline: start + 10)
            times.append(wallSeconds() - start)
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            guard let greeting, greeting.hasPrefix("OK MPD ") else {
                fail("mpd gave no protocol greeting within 10 s (see \(dir)/mpd.log)")
            }
            version = String(greeting.dropFirst("OK MPD ".count))
        }
        times.sort()
        return (times[times.count / 2] * 1000, "\(installedVersion() ?? "?") (protocol \(version))")
    }

    /// `mpd --version`'s version, e.g. `0.23.12`.
    private static func installedVersion() -> String? {
        guard let pipe = popen("'\(binary)' --version", "r") else { return nil }
        defer { pclose(pipe) }
        var line = [CChar](repeating: 0, count: 256)
        guard fgets(&line, Int32(line.count), pipe) != nil else { return nil }
        // "Music Player Daemon 0.23.12 (0.23.12)"
        return String(cString: line).split(separator: " ").dropFirst(3).first.map(String.init)
    }

    /// Connects to `path` as soon as MPD listens (retried every 0.2 ms) and reads its first
    /// line; nil when MPD exits or the deadline passes.
    private static func greetingLine(_ path: String, pid: pid_t, deadline: Double) -> String? {
        while wallSeconds() < deadline {
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid { return nil }
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: Array(path.utf8)) }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            if connected == 0 {
                defer { close(fd) }
                var line: [UInt8] = []
                var byte: UInt8 = 0
                while read(fd, &byte, 1) == 1, byte != UInt8(ascii: "\n") { line.append(byte) }
                return String(decoding: line, as: UTF8.self)
            }
            close(fd)
            sleepMonotonic(nanoseconds: 200_000)
        }
        return nil
    }
}
