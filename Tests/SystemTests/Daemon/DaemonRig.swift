import BoxSupport
import CharacterDisplay
import Foundation
import Glibc
import SegmanceBoard

/// The real `segmance run` in the box, driven and watched only through the kernel's
/// devices: gpio-sim pulls for the buttons and encoder, the LCD's bytes from the smbus
/// trace, the audio from the loopback card's capture side, the daemon's log on stderr.
///
/// Its configuration is written here: the board is the repository's board/sim-vm.toml,
/// the library a folder on tmpfs (/run), the media root the folder the stick helper mounts
/// under. The binary is `$SEGMANCE_BOX_SEGMANCE` (Tests/System/run.sh: the installed
/// package's /usr/bin/segmance); with `$SEGMANCE_BOX_USER` (run.sh: segmance) it runs as
/// that user — no root — with the limits segmance.service grants (LimitRTPRIO=70,
/// LimitMEMLOCK=256M), as systemd would start it.
final class DaemonRig {
    static var binary: String? { getenv("SEGMANCE_BOX_SEGMANCE").map { String(cString: $0) } }
    static var user: String? { getenv("SEGMANCE_BOX_USER").map { String(cString: $0) } }
    static let root = "/run/segmance-box"

    let name: String
    let directory: String
    let library: String
    let mediaRoot: String
    /// Where the stick helper says why it refused a stick (the daemon's stick_status).
    let stickStatus: String
    let stick: String
    let configuration: String
    let board: String
    let profile: BoardProfile
    let panel: SimulatedPanel
    private(set) var daemon: BoxProcess?
    private(set) var lcd: LCDTrace?
    private(set) var capture: LoopbackCapture?

    /// A fresh folder for `name`, with `routines` written to a stick folder and imported into
    /// the library before the daemon starts.
    init(_ name: String, routines: [BoxStick.Routine] = []) throws {
        guard let binary = Self.binary, access(binary, X_OK) == 0 else {
            throw BoxError("no segmance binary: SEGMANCE_BOX_SEGMANCE=\(Self.binary ?? "(unset)") (Tests/System/run.sh sets it)")
        }
        self.name = name
        directory = Self.root + "/" + name
        library = directory + "/library"
        mediaRoot = directory + "/media"
        stickStatus = directory + "/stick-status"
        stick = directory + "/stick"
        configuration = directory + "/segmance.toml"
        board = Box.boardDirectory + "/sim-vm.toml"
        profile = try BoardProfile(parsing: try Box.read(board), file: board)
        panel = try SimulatedPanel(profile: profile)
        try BoxProcess.check(["/bin/rm", "-rf", directory])
        try BoxProcess.check(["/bin/mkdir", "-p", library, mediaRoot])
        try BoxStick.write(routines, to: stick)
        if let user = Self.user {
            try BoxProcess.check(["/bin/chown", "-R", "\(user):\(user)", library])
            try BoxProcess.check(["/bin/chmod", "750", library])
        }
        try writeText("""
            board = "\(board)"
            library = "\(library)"
            media_root = "\(mediaRoot)"
            stick_status = "\(stickStatus)"
            auto_import = false
            realtime_priority = 70
            """, to: configuration)
        if !routines.isEmpty {
            try segmance(["import", stick, "--library", library], timeout: 300)
        }
    }

    deinit {
        if let daemon, daemon.exitStatus == nil { daemon.send(SIGKILL); _ = daemon.waitForExit(timeout: 5) }
        lcd?.stop()
        capture?.stop()
        // For a look afterwards: the run folder is kept with boxrun --keep.
        if access("/share", W_OK) == 0 {
            if let daemon { try? writeText(daemon.text.joined(separator: "\n"), to: "/share/daemon-\(name).log") }
            if let lcd {
                try? writeText(lcd.screens.map { "\($0.time) |" + $0.rows.joined(separator: "|") + "|" }.joined(separator: "\n"),
                               to: "/share/lcd-\(name).txt")
            }
        }
    }

    /// How a command is started as the daemon's user with the service's limits, at normal
    /// priority (nice 0) when the harness runs niced (`Tests/System/guest/run-all.sh`).
    static var asUser: [String] {
        let own = Glibc.nice(0)
        let normal = own > 0 ? ["/usr/bin/nice", "-n", "\(-own)"] : []
        guard let user else { return normal }
        return normal + ["/usr/bin/prlimit", "--rtprio=70:70", "--memlock=268435456:268435456", "--",
                         "/usr/bin/setpriv", "--reuid=\(user)", "--regid=\(user)", "--init-groups", "--"]
    }

    /// Runs `segmance ARGS` (as the daemon's user) and returns its output; throws unless it exits 0.
    @discardableResult
    func segmance(_ arguments: [String], timeout: Double = 120) throws -> [String] {
        try BoxProcess.check(Self.asUser + [Self.binary!] + arguments, timeout: timeout)
    }

    /// Starts following the LCD and the capture, then the daemon; returns when it is ready.
    func start(captureSeconds: Int = 90) throws {
        let display = profile.display
        lcd = try LCDTrace(adapter: display.bus ?? 0, address: display.address ?? 0x27,
                           pinMap: PCF8574PinMap.named[display.backpack ?? ""] ?? .common,
                           columns: display.columns, rows: display.rows)
        let capture = try LoopbackCapture(seconds: captureSeconds)
        try capture.start()
        self.capture = capture
        let daemon = try BoxProcess(Self.asUser + [Self.binary!, "run", "--config", configuration])
        self.daemon = daemon
        try daemon.expectLine(containing: "ready: ", timeout: 60)
        let audio = try daemon.expectLine(containing: "audio: hw:", timeout: 10)
        // What the service grants: SCHED_FIFO 70 within LimitRTPRIO, memory locked within LimitMEMLOCK.
        guard audio.line.text.hasSuffix("render thread SCHED_FIFO priority 70, memory locked") else {
            throw BoxError("the daemon's render thread did not get what segmance.service grants: \(audio.line.text)")
        }
        // The control loop and the LCD's thread at normal priority (control_priority left
        // out): real-time, they went with underruns in 3 of 7 rehearsal runs here.
        if let fifo = daemon.text.first(where: { $0.contains("control loop: SCHED_FIFO") || $0.contains("LCD thread: SCHED_FIFO") }) {
            throw BoxError("the daemon's control loop or LCD thread is real-time although control_priority is left out: \(fifo)")
        }
        // The daemon at nice 0 whatever the harness runs at (`asUser`).
        let stat = try Box.read("/proc/\(daemon.pid)/stat")
        let fields = stat[(stat.lastIndex(of: ")") ?? stat.startIndex)...].split(separator: " ")
        guard fields.count > 17, fields[17] == "0" else {
            throw BoxError("the daemon does not run at nice 0: /proc/\(daemon.pid)/stat \(stat)")
        }
        if let user = Self.user {
            // setpriv and prlimit exec'd into the daemon: the same process, now as the user.
            let status = try Box.read("/proc/\(daemon.pid)/status").split(separator: "\n")
            let ids = status.filter { $0.hasPrefix("Uid:") || $0.hasPrefix("CapEff:") || $0.hasPrefix("Name:") }
            guard ids.contains(where: { $0.hasPrefix("Name:") && $0.hasSuffix("segmance") }),
                  let uid = ids.first(where: { $0.hasPrefix("Uid:") })?.split(whereSeparator: { $0 == "\t" || $0 == " " }).dropFirst().map(String.init),
                  uid.count == 4, !uid.contains("0"),
                  ids.contains("CapEff:\t0000000000000000") else {
                throw BoxError("the daemon is not running as \(user) without privileges: \(ids)")
            }
            daemonUser = "\(user) (uid \(uid[0]), no capabilities)"
        }
    }

    /// Who the daemon runs as, when not root.
    private(set) var daemonUser: String?

    /// SIGTERM, as systemd stops the service: the daemon pauses, drains and exits 0.
    func stop() throws {
        guard let daemon else { return }
        daemon.send(SIGTERM)
        guard let status = daemon.waitForExit(timeout: 20) else {
            throw BoxError("the daemon did not stop within 20 s of SIGTERM; its log:\n" + daemon.text.joined(separator: "\n"))
        }
        lcd?.stop()
        capture?.stop()
        guard status == 0, daemon.text.last == "stopped" else {
            throw BoxError("the daemon exited with status \(status); its log:\n" + daemon.text.joined(separator: "\n"))
        }
    }

    /// The daemon's control log lines, parsed.
    var controls: [ControlRecord] { ControlRecord.records(fromLog: daemon?.text ?? []) }

    /// The daemon's log lines that say something went wrong with the audio.
    var audioTrouble: [String] { audioTrouble(fromLine: 0) }

    /// The same, from the daemon's log line `index` on (what happened after a moment).
    func audioTrouble(fromLine index: Int) -> [String] {
        let lines = daemon?.text ?? []
        return lines[min(index, lines.count)...].filter {
            $0.contains("underrun") || $0.contains("late") || $0.contains("render thread stopped")
        }
    }

    /// Runs `body`; what it throws comes back with the daemon's lines of audio trouble so
    /// far (an underrun is seen in the harness first as the loopback card's pointers moving).
    func sayingAudioTrouble(_ body: () throws -> Void) throws {
        do { try body() } catch {
            // The daemon logs what its render thread reported at its loop's next pass.
            Box.hold(milliseconds: 500)
            let trouble = audioTrouble
            guard !trouble.isEmpty else { throw error }
            throw BoxError("\(error)\nthe daemon's audio trouble meanwhile:\n" + trouble.joined(separator: "\n"))
        }
    }

    func writeText(_ text: String, to path: String) throws {
        guard let file = fopen(path, "w") else { throw BoxError("cannot write \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        _ = fputs(text + "\n", file)
    }
}
