/// The daemon's configuration file (`/etc/segmance/segmance.toml` on the device):
///
/// ```toml
/// board = "/usr/share/segmance/board/pi-gpio.toml"  # board profile; relative = from this file's folder
/// library = "/var/lib/segmance"                      # routine library (SQLite + media)
/// media_root = "/media/segmance"                     # sticks are mounted below this
/// stick_status = "/run/segmance-stick"               # where the mount helper says why a stick was refused
/// auto_import = false                                # import without a button press
/// start_volume_max = 70                              # the most volume (%) the box starts at
/// realtime_priority = 70                             # SCHED_FIFO of the render thread; 0 = normal
/// control_priority = 0                               # SCHED_FIFO of the control loop, below it; 0 = normal
/// ```
///
/// Every key but `board` may be left out. Errors name the file and the key.
public struct DaemonConfiguration: Equatable, Sendable {
    /// The board profile's path, made absolute against the configuration's folder.
    public var board: String
    public var library: String
    public var mediaRoot: String
    /// The folder where the stick mount helper (deploy/segmance-stick) leaves a file for each
    /// stick it refused (APFS, unknown file system, …), which the daemon shows.
    public var stickStatus: String
    /// Where *Save to stick* leaves the routines and its request for the mount helper
    /// (`segmance-stick save`, started by segmance-stick-save.path): `<library>/stick-save`.
    public var stickSave: String { library + "/stick-save" }
    /// Whether a stick is imported without a button press: the default until the performer
    /// changes *Auto import* in the menu (the setting saved in the library wins).
    public var autoImport: Bool
    /// 1...99 asks for SCHED_FIFO at that priority; 0 keeps normal scheduling.
    public var realtimePriority: Int
    /// The control loop's SCHED_FIFO priority (the thread that reads the buttons and sends
    /// their commands), below the render thread's; 0 keeps normal scheduling. A press then
    /// reaches the audio side within a period however busy the other cores are (an import's
    /// decoding, a shell): the kernel moves a woken real-time thread to a core running
    /// ordinary work at once, where an ordinary thread waits for its turn or the balancer.
    /// Left out: 0 (`controlPriority(below:)` says why).
    public var controlPriority: Int
    /// The most volume (percent, 0...100) the box starts at: the volume saved at the end of a
    /// loud class is capped to it at power-on (`start_volume_max`; left out: 70).
    public var startVolumeMaximum: Int

    public static let defaultLibrary = "/var/lib/segmance"
    public static let defaultMediaRoot = "/media/segmance"
    public static let defaultStickStatus = "/run/segmance-stick"
    public static let defaultPriority = 70
    public static let defaultStartVolumeMaximum = 70

    public init(board: String, library: String = defaultLibrary, mediaRoot: String = defaultMediaRoot,
                autoImport: Bool = false, realtimePriority: Int = defaultPriority,
                stickStatus: String = defaultStickStatus, controlPriority: Int? = nil,
                startVolumeMaximum: Int = defaultStartVolumeMaximum) {
        self.board = board
        self.startVolumeMaximum = startVolumeMaximum
        self.library = library
        self.mediaRoot = mediaRoot
        self.stickStatus = stickStatus
        self.autoImport = autoImport
        self.realtimePriority = realtimePriority
        self.controlPriority = controlPriority ?? Self.controlPriority(below: realtimePriority)
    }

    /// The control loop's priority when none is configured: normal scheduling. In the board in
    /// a box (qemu, TCG) a SCHED_FIFO control loop and LCD thread went with underruns or audio
    /// unlike the twin's in 3 of 7 rehearsal runs, against none in 5 at normal priority.
    static func controlPriority(below _: Int) -> Int { 0 }

    /// Parses and checks a configuration read from `file`.
    public init(parsing text: String, file: String) throws(BoardProfileError) {
        let r = Reader(file: file)
        let root = try r.parse(text)
        try r.known(root, "", ["board", "library", "media_root", "stick_status", "auto_import", "realtime_priority",
                          "control_priority", "start_volume_max"])
        guard let board = try r.string(root, "board"), !board.isEmpty else {
            throw r.error(
                "board", "is missing (the board profile to use, e.g. \"/usr/share/segmance/board/pi-gpio.toml\")")
        }
        self.board = Self.path(board, relativeTo: file)
        library = Self.path(try r.string(root, "library") ?? Self.defaultLibrary, relativeTo: file)
        mediaRoot = Self.path(try r.string(root, "media_root") ?? Self.defaultMediaRoot, relativeTo: file)
        stickStatus = Self.path(try r.string(root, "stick_status") ?? Self.defaultStickStatus, relativeTo: file)
        autoImport = try r.bool(root, "auto_import") ?? false
        startVolumeMaximum = try r.int(root, "start_volume_max") ?? Self.defaultStartVolumeMaximum
        guard (0...100).contains(startVolumeMaximum) else {
            throw r.error("start_volume_max", "must be a volume in percent, 0...100, not \(startVolumeMaximum)")
        }
        realtimePriority = try r.int(root, "realtime_priority") ?? Self.defaultPriority
        guard (0...99).contains(realtimePriority) else {
            throw r.error(
                "realtime_priority",
                "must be 0 (normal scheduling) or a SCHED_FIFO priority 1...99, not \(realtimePriority)")
        }
        controlPriority = try r.int(root, "control_priority") ?? Self.controlPriority(below: realtimePriority)
        guard controlPriority == 0 || (1..<max(1, realtimePriority)).contains(controlPriority) else {
            throw r.error("control_priority", realtimePriority == 0
                    ? "must be 0 (normal scheduling) while realtime_priority is 0: a real-time control loop would "
                      + "preempt the render thread, not \(controlPriority)"
                    : "must be 0 (normal scheduling) or a SCHED_FIFO priority 1...\(realtimePriority - 1), below "
                      + "realtime_priority (\(realtimePriority)), not \(controlPriority)"
            )
        }
    }

    /// `path` as written in `file`: absolute as it is, relative to the file's folder otherwise.
    static func path(_ path: String, relativeTo file: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let slash = file.lastIndex(of: "/") else { return path }
        return String(file[...slash]) + path
    }
}
