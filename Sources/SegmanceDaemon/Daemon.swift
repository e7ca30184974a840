import CharacterDisplay
import Glibc
import LinuxSystem
import SegmanceAppliance
import SegmanceAudio
import SegmanceBoard
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import StickTransfer
import StickWatch

/// The appliance on a board: one control loop that owns the state, waits in one `poll` on
/// every source (GPIO lines, input devices and their hotplug, the audio side's reports,
/// sticks mounted under the media root, the import's progress, signals, timers), runs the
/// reducer on each event in order and carries out its effects. The audio renders on its
/// own real-time thread, the LCD draws on its own thread and imports run in a child process
/// (`ProcessImportRunner`: the decoders' code and memory stay out of the daemon, and a
/// decoder that crashes on a hostile file ends only that child), so nothing here waits on a
/// device or a stick while a button is pending.
public final class Daemon {
    /// Everything the daemon takes from the machine; tests replace parts of it.
    public struct Environment {
        public var paths = BoardInputs.Paths()
        public var clock: @Sendable () -> Int64 = monotonicNanoseconds
        /// Where `NOTIFY_SOCKET` and the watchdog settings are read.
        public var variables: [String: String] = [:]
        public var log: Log = .standardError
        /// Where a `terminal` display draws.
        public var terminal: (String) -> Void = { Log.writeLine($0, to: STDERR_FILENO) }
        /// Opens the audio side for the profile's `[audio]` table and the configured priority.
        public var openAudio: (BoardProfile.Audio, Int) throws -> DaemonAudio
        /// Opens the display; nil opens what the profile names.
        public var openDisplay: ((BoardProfile) throws -> CharacterDisplay)?
        /// Gives back start-up's code pages once ready (`ResidentSet.trim`); tests that run
        /// the daemon inside a test process leave that process's memory alone.
        public var trimsStartup = false
        /// Puts the loop's thread in SCHED_FIFO at the configured `control_priority` once the
        /// render and LCD threads run (`ControlScheduling`); tests that run the daemon on a
        /// thread of the test process leave its scheduling alone.
        public var setsControlPriority = false
        /// Told the timeout of each `poll` the loop is about to make (ms, -1: none), so a
        /// test can see what the loop waits for without watching the clock.
        public var willPoll: ((Int32) -> Void)?
        /// The binary whose `import-worker` subcommand runs each import: the daemon's own;
        /// tests that run the daemon inside a test process name the `segmance` binary.
        public var importWorker = "/proc/self/exe"
        /// Extra environment for the import worker (`NAME=value`; tests' crash hook).
        public var importWorkerEnvironment: [String] = []

        public init(openAudio: @escaping (BoardProfile.Audio, Int) throws -> DaemonAudio) {
            self.openAudio = openAudio
        }
    }

    /// How often an audio side with no wake descriptor is looked at.
    public static let audioPollNanoseconds: Int64 = 100_000_000
    /// The shortest wait for a position to be reached: the position read may be a render
    /// wake old (with a deep buffer, up to a quarter of it), so a wake that finds it not
    /// yet there waits this long before looking again rather than spinning.
    public static let positionRecheckNanoseconds: Int64 = 20_000_000

    public let configuration: DaemonConfiguration
    public let profile: BoardProfile
    private let environment: Environment
    private let log: Log
    private let context: LoopContext
    private let audio: DaemonAudio
    private let display: DisplayWorker
    private let stopRequest: EventDescriptor
    private let notifier: SystemdNotifier
    private let memory: MemoryGiveBack
    // The loop's sources, in the order each pass runs them.
    private let audioSource: AudioSource
    private let termination: TerminationSource
    private let mounts: MountSource
    private let imports: ImportSource
    private let stickHelper: StickHelperSource
    private let inputs: InputSource
    private let audioLog: AudioLogSource
    private let screen: ScreenSource
    private let watchdog: WatchdogSource

    /// Opens every device of the board. Signals are blocked from here on, so make the
    /// daemon before starting other threads.
    public init(configuration: DaemonConfiguration, profile: BoardProfile,
                environment: Environment) throws(DaemonError) {
        // Before the LCD's thread starts: the audio side locks memory, and every arena counts.
        Heap.useOneArena()
        self.configuration = configuration
        self.profile = profile
        self.environment = environment
        let log = environment.log
        self.log = log
        let signals = try DaemonError.system { () throws(LinuxSystem.SystemError) in try SignalDescriptor() }
        stopRequest = try DaemonError.system { () throws(LinuxSystem.SystemError) in try EventDescriptor() }
        notifier = SystemdNotifier(environment: environment.variables)
        let board = try DaemonError.wrapping(DaemonError.board) {
            try BoardInputs(profile: profile, file: configuration.board, paths: environment.paths, log: log)
        }
        let display = try DaemonError.wrapping(DaemonError.board) {
            let lcd = try environment.openDisplay?(profile)
                ?? Displays.open(profile, file: configuration.board, devices: environment.paths.devices,
                                 terminal: environment.terminal)
            return try DisplayWorker(ResilientDisplay(lcd, log: { Self.logDisplay($0, log) }), clock: environment.clock)
        }
        let audio = try DaemonError.wrapping(DaemonError.audio) {
            try environment.openAudio(profile.audio, configuration.realtimePriority)
        }
        self.display = display
        self.audio = audio
        let library = try DaemonError.wrapping(DaemonError.library) {
            try Library(directory: configuration.library, sampleRate: profile.audio.rate)
        }
        let importer = ProcessImportRunner(executable: environment.importWorker, library: library.directory,
                                       sampleRate: profile.audio.rate, environment: environment.importWorkerEnvironment)
        importer.log = { log.info($0) }
        let mountWatcher = try DaemonError.wrapping(DaemonError.sticks) {
            try MountWatcher(root: configuration.mediaRoot, mountinfo: environment.paths.mountinfo)
        }
        let refusals: StickRefusalWatcher?
        do {
            refusals = try StickRefusalWatcher(directory: configuration.stickStatus)
        } catch {
            refusals = nil
            log.warning("sticks: \(error): a stick that cannot be mounted will not be named")
        }
        let appliance = try DaemonError.wrapping(DaemonError.library) {
            try Self.makeAppliance(configuration, profile, audio: audio.engine, library: library,
                                   importer: importer, log: log)
        }
        let context = LoopContext(appliance: appliance, log: log, clock: environment.clock)
        let memory = MemoryGiveBack(audio, enabled: environment.trimsStartup, context: context)
        self.context = context
        self.memory = memory
        audioSource = AudioSource(audio, context: context)
        termination = TerminationSource(signals: signals, stopRequest: stopRequest, log: log)
        mounts = MountSource(mountWatcher, statusDirectory: configuration.stickStatus, context: context)
        imports = ImportSource(importer, memory: memory, context: context)
        stickHelper = StickHelperSource(refusals, context: context)
        inputs = InputSource(board, context: context)
        audioLog = AudioLogSource(audio, log: log)
        screen = ScreenSource(display, audio: audio, sampleRate: profile.audio.rate, context: context)
        watchdog = WatchdogSource(notifier, context: context)
    }

    /// The appliance for the board's display and audio, logging to `log`.
    private static func makeAppliance(_ configuration: DaemonConfiguration, _ profile: BoardProfile,
                                      audio: AudioEngine, library: Library, importer: ProcessImportRunner,
                                      log: Log) throws -> Appliance {
        var c = Appliance.Configuration()
        c.sampleRate = profile.audio.rate
        c.columns = profile.display.columns
        c.rows = profile.display.rows
        c.rom = CharacterROM(rawValue: profile.display.rom) ?? .ascii
        c.render = .standard(sampleRate: profile.audio.rate)
        // The configured default until the performer changes it in the menu (saved settings win).
        c.settings.autoImport = configuration.autoImport
        c.startVolumeMaximum = configuration.startVolumeMaximum
        let appliance = try Appliance(c, audio: audio, library: library, importer: importer)
        appliance.log = { log.info($0) }
        appliance.logsSaves = true
        appliance.logWarning = { log.warning($0) }
        appliance.logError = { log.error($0) }
        appliance.stickSaveSpool = StickSaveSpool(directory: configuration.stickSave,
                                                  statusDirectory: configuration.stickStatus)
        return appliance
    }

    /// A line of the display's (`ResilientDisplay`): its failure a warning, its return a notice.
    static func logDisplay(_ line: String, _ log: Log) {
        if line.hasPrefix("display failed") { log.warning("display: " + line) } else { log.notice("display: " + line) }
    }

    /// The appliance's state (for tests and status); read it from the loop's thread or
    /// after `run` returned.
    public var state: PlayerState { context.appliance.state }

    /// Asks `run` to end as SIGTERM does. Safe from any thread.
    public func stop() { stopRequest.signal() }

    /// Runs until SIGTERM, SIGINT or `stop()`, then lets the audio drain and the display
    /// show its last frame.
    ///
    /// The loop sleeps until something can change: a descriptor (a control, the audio
    /// side's reports, a mount, the importer, a signal), a control's pending deadline
    /// (debounce, long press), the watchdog, or the time the frame on screen changes by
    /// itself (a marquee step, a notice's end). Playing, it sleeps until the clock's next
    /// second or the next beat on the LCD is heard (`ScreenSource`); nothing ticks on a grid.
    public func run() throws(DaemonError) {
        try startUp()
        let loop = DaemonLoop([audioSource, termination, mounts, imports, stickHelper, inputs, audioLog,
                               memory, screen, watchdog],
                              clock: environment.clock, willPoll: environment.willPoll)
        termination.stop = { [unowned loop] in loop.stopping = true }
        do {
            try loop.run()
        } catch {
            shutDown()
            throw error
        }
        shutDown()
    }

    /// Shows the first frame, offers the devices and sticks already there, gives back
    /// start-up's memory, starts the render thread and tells systemd the daemon is ready.
    private func startUp() throws(DaemonError) {
        try display.start()
        let now = environment.clock()
        context.clockOrigin = now
        context.appliance.send(.clock(0))
        inputs.start(now: now)
        // Sticks already mounted when the daemon starts are offered like new ones.
        mounts.offer()
        stickHelper.refused()
        screen.show()
        let trimmed = memory.giveBackStartup()
        if audio.startsLater {
            memory.memoryLocked = try DaemonError.wrapping(DaemonError.audio) { try audio.start() }
        }
        raiseControlPriority()
        notifier.notify("READY=1\nSTATUS=Ready: \(profile.name)")
        let display = profile.display
        log.info("ready: \(profile.name), audio \(profile.audio.device), display \(display.kind.rawValue) "
                 + "\(display.columns)x\(display.rows)")
        if let trimmed {
            log.info("memory: start-up code given back (\(trimmed / 1_048_576) MB of read-only mappings trimmed), "
                     + "render code warmed up\(memory.memoryLocked ? " and locked" : "")")
        }
        memory.ready(now: environment.clock())
        watchdog.start(now: environment.clock())
    }

    /// After the render thread started (SCHED_FIFO at realtime_priority, its own): the loop's
    /// thread at `control_priority`, the LCD's just below it (what the loop posts is drawn at once).
    private func raiseControlPriority() {
        guard environment.setsControlPriority, configuration.controlPriority > 0 else { return }
        log.info(ControlScheduling.raise(priority: configuration.controlPriority))
        if configuration.controlPriority > 1 { log.info(display.raisePriority(configuration.controlPriority - 1)) }
    }

    /// Pauses (the audio ramps out, the place is saved), abandons an import in flight, lets
    /// the audio side end and the display show its last frame.
    private func shutDown() {
        notifier.notify("STOPPING=1")
        context.appliance.send(.shuttingDown)
        imports.cancel()
        audio.shutdown()
        audioLog.drain()
        display.stop()
        log.notice("stopped")
    }
}
