import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The watchdog: systemd restarts `segmance.service` when no `WATCHDOG=1` arrives within its
/// `WatchdogSec`; the daemon means to ping every half of it. Runs `segmance run` with the
/// unit's `WATCHDOG_USEC` on the notify socket `fd` (bound at `socketPath`) and measures the
/// longest gap from READY=1 through the next two pings. Budget: half `WatchdogSec`, + 10 %
/// for the scheduling of a loaded machine.
func benchWatchdog(binary: String, fd: Int32, socketPath: String, dir: String) {
    let service = option("service", serviceFile)
    guard let watchdog = watchdogSeconds(service) else {
        BenchBudget.require(false, "watchdog: no WatchdogSec= in \(service)")
        return
    }
    let budget = watchdog / 2 * 1.1
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = cStrings([binary, "run", "--config", dir + "/segmance.toml"])
    let env = cStrings(["NOTIFY_SOCKET=" + socketPath, "WATCHDOG_USEC=\(Int(watchdog * 1_000_000))"])
    defer { (argv + env).forEach { free($0) } }
    var pid: pid_t = 0
    precondition(posix_spawn(&pid, binary, &actions, nil, argv, env) == 0)
    defer {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
    }
    var last: Double? = nil, gaps: [Double] = []
    var buffer = [UInt8](repeating: 0, count: 256)
    // Until READY=1 and two pings, or until a ping is later than systemd would wait.
    while gaps.count < 2 {
        var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        let wait = last.map { $0 + watchdog - wallSeconds() } ?? 10
        guard wait > 0, poll(&ready, 1, Int32(wait * 1000)) == 1 else {
            gaps.append(watchdog)   // none within WatchdogSec: systemd would have restarted it
            break
        }
        let n = recv(fd, &buffer, buffer.count, 0)
        let message = String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        let now = wallSeconds()
        if message.hasPrefix("READY=1") {
            last = now
        } else if message.hasPrefix("WATCHDOG=1"), let before = last {
            gaps.append(now - before)
            last = now
        }
    }
    let longest = gaps.max() ?? watchdog
    print("watchdog: `segmance run` with WatchdogSec=\(format(watchdog, 0)) s (\(service)): WATCHDOG=1 gaps "
            + gaps.map { format($0, 2) + " s" }.joined(separator: ", ")
            + " (budget ≤ \(format(budget, 2)) s: half WatchdogSec + 10 %)")
    BenchBudget.record(
        BenchFigure(
            what: "watchdog: longest gap between READY=1 and WATCHDOG=1 pings (WATCHDOG_USEC from segmance.service)",
            figure: "\(format(longest, 2)) s",
            budget: "≤ \(format(budget, 2)) s (WatchdogSec=\(format(watchdog, 0)) s / 2 + 10 %)",
            met: longest <= budget))
}

/// deploy/segmance.service in the source tree this benchmark was built from.
let serviceFile = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("deploy/segmance.service").path

/// `WatchdogSec=` of a unit file in seconds (`10`, `10s`, `500ms`, `1min`); nil without one.
func watchdogSeconds(_ unit: String) -> Double? {
    guard let text = try? String(contentsOfFile: unit, encoding: .utf8),
          let line = text.split(separator: "\n").first(where: { $0.hasPrefix("WatchdogSec=") }) else { return nil }
    let value = line.dropFirst("WatchdogSec=".count).trimmingCharacters(in: .whitespaces)
    let digits = value.prefix { $0.isNumber || $0 == "." }
    guard let number = Double(digits) else { return nil }
    switch value.dropFirst(digits.count) {
    case "", "s", "sec": return number
    case "ms", "msec": return number / 1000
    case "min", "m": return number * 60
    default: return nil
    }
}
