import BoxSupport
import Glibc
import Testing

extension SystemTests.Daemon {
    /// The daemon's log as journald files it, the daemon started as segmance.service is:
    /// its standard error a journal stream (`systemd-cat --level-prefix=true`, as systemd
    /// connects a service's), in the unit's cgroup, as user segmance with the unit's limits.
    /// A normal start puts nothing under `journalctl -u segmance -p warning`; a stick the
    /// mount helper refused (its status file, as deploy/segmance-stick writes it) and an
    /// underrun (the daemon stopped 300 ms with SIGSTOP while it plays) do.
    @Test func theJournalHasARefusedStickAndAnUnderrunAsWarningsAndNotAStart() throws {
        let routine = BoxStick.Routine(folder: "Journal", manifest: "countdown = 0\n",
                                       parts: [("01 Journal.wav", 30, 48_000)])
        let rig = try DaemonRig("journal", routines: [routine])
        let journald = try ServiceJournal.start()
        defer {
            journald?.send(SIGTERM)
            _ = journald?.waitForExit(timeout: 10)
        }
        let before = try ServiceJournal.lines(priority: "debug").count
        let daemon = try BoxProcess(ServiceJournal.asService + DaemonRig.asUser
                                    + [DaemonRig.binary!, "run", "--config", rig.configuration])
        defer {
            if daemon.exitStatus == nil { daemon.send(SIGKILL) }
            if let lines = try? ServiceJournal.lines(priority: "debug"), access("/share", W_OK) == 0 {
                try? rig.writeText(lines.joined(separator: "\n"), to: "/share/journal-journal.log")
            }
        }
        _ = try ServiceJournal.expect("ready: ", after: before, timeout: 60)
        // What start-up logs after READY: the render thread's start given back, within 1 s.
        _ = try ServiceJournal.expect("run once while the render thread started given back", after: before,
                                      timeout: 20)
        let started = try ServiceJournal.lines(priority: "debug")
        #expect(started.count > before && started[before...].contains { $0.hasPrefix("audio: hw:") }, "\(started)")
        #expect(try ServiceJournal.lines(priority: "warning").isEmpty, "\(started)")

        let message = "/dev/sdb2 is APFS (a Mac's default format), which Linux cannot read: reformat the stick as exFAT"
        try BoxProcess.check(["/bin/mkdir", "-p", rig.stickStatus])
        try rig.writeText("device=/dev/sdb2\nfilesystem=apfs\nreason=apfs\nmessage=\(message)",
                          to: rig.stickStatus + "/.sdb2.tmp")
        #expect(rename(rig.stickStatus + "/.sdb2.tmp", rig.stickStatus + "/sdb2") == 0)
        _ = try ServiceJournal.expect("stick: \(message)", priority: "warning", timeout: 20)

        try rig.panel.tap("play")
        _ = try ServiceJournal.expect("control: press play at part 1", after: before, timeout: 20)
        Box.hold(milliseconds: 1500)
        kill(daemon.pid, SIGSTOP)
        Box.hold(milliseconds: 300)
        kill(daemon.pid, SIGCONT)
        _ = try ServiceJournal.expect("audio: underrun at output frame", priority: "warning", timeout: 20)

        daemon.send(SIGTERM)
        #expect(daemon.waitForExit(timeout: 20) == 0)
        let warnings = try ServiceJournal.lines(priority: "warning")
        #expect(warnings.allSatisfy { $0.hasPrefix("stick: ") || $0.hasPrefix("audio: underrun") }, "\(warnings)")
    }
}

/// journald in the box (the guest has no systemd as PID 1: journald runs on its own, and
/// reads a process's unit from its cgroup, as under systemd) and what it keeps of segmance.service.
enum ServiceJournal {
    static let cgroup = "/sys/fs/cgroup/system.slice/segmance.service"
    static let stream = "/run/systemd/journal/stdout"

    /// Mounts the unified cgroup hierarchy (before journald starts: it looks once which
    /// hierarchy there is) and makes the unit's cgroup, and starts journald unless it runs;
    /// returns the journald it started.
    static func start() throws -> BoxProcess? {
        if access("/sys/fs/cgroup/cgroup.procs", F_OK) != 0 {
            try BoxProcess.check(["/bin/mount", "-t", "cgroup2", "cgroup2", "/sys/fs/cgroup"])
        }
        try BoxProcess.check(["/bin/mkdir", "-p", cgroup])
        guard try BoxProcess.run(["/usr/bin/pgrep", "-x", "systemd-journal"]).status != 0 else { return nil }
        let journald = try BoxProcess(["/lib/systemd/systemd-journald"])
        let deadline = Box.now() + 30_000_000_000
        while access(stream, F_OK) != 0 {
            guard Box.now() < deadline, journald.exitStatus == nil else {
                throw BoxError("journald did not open \(stream): " + journald.text.joined(separator: "\n"))
            }
            Box.hold(milliseconds: 50)
        }
        return journald
    }

    /// The prefix that starts a command as systemd starts the service: in the unit's cgroup,
    /// its standard output and error a journal stream that reads the `<N>` priority prefixes.
    static var asService: [String] {
        ["/bin/sh", "-c", "echo $$ > \(cgroup)/cgroup.procs && exec \"$@\"", "sh",
         "/usr/bin/systemd-cat", "--level-prefix=true", "-t", "segmance", "--"]
    }

    /// The text of the unit's lines at `priority` or more urgent, oldest first.
    static func lines(priority: String) throws -> [String] {
        try BoxProcess.check(["/usr/bin/journalctl", "-u", "segmance", "-p", priority, "-o", "cat", "-q",
                              "--no-pager"])
    }

    /// Waits for a line of the unit at `priority` or more urgent containing `text`, after
    /// the first `after`; throws with the unit's lines when none comes within `timeout` s.
    @discardableResult
    static func expect(_ text: String, priority: String = "debug", after: Int = 0, timeout: Double) throws -> String {
        let deadline = Box.now() + Int64(timeout * 1e9)
        while true {
            let all = try lines(priority: priority)
            if let line = all.dropFirst(after).first(where: { $0.contains(text) }) { return line }
            guard Box.now() < deadline else {
                let every = (try? lines(priority: "debug")) ?? []
                throw BoxError("no line \"\(text)\" at priority \(priority) or above under journalctl -u segmance "
                    + "within \(timeout) s; the unit's lines:\n" + every.joined(separator: "\n"))
            }
            Box.hold(milliseconds: 200)
        }
    }
}
