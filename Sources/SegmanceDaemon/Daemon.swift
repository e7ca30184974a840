import CharacterDisplay
import Glibc
import LinuxSystem
import SegmanceBoard
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceAppliance
import SegmanceAudio

/// The appliance on a board: one control loop that owns the state, waits in one `poll` on
/// every source (GPIO lines, input devices and their hotplug, the audio side's reports,
/// sticks mounted under the media root, the import's progress, signals, timers), runs the
/// reducer on each event in order and carries out its effects. The audio renders on its
/// own real-time thread, the LCD draws on its own thread and imports run in a child process
/// (`ProcessImportRunner`: the decoders' code and memory stay out of the daemon, and a
/// decoder that crashes on a hostile file ends only that child), so nothing here waits on a
/// device or a stick while a button is pending.
public final class Daemon {
    /// The audio side as the loop drives it.
    public struct Audio {
        public var engine: AudioEngine
        /// Readable when the audio side has reports waiting; nil to be polled every
        /// `Daemon.audioPollNanoseconds` instead.
        public var wakeDescriptor: Int32?
        /// Lines the audio side wants logged (xruns, scheduling granted), drained by the loop.
        public var takeLog: () -> [String]
        /// Lets what was sent (the ramp-out of the last pause) and what is queued play out,
        /// then ends the audio side.
        public var shutdown: () -> Void
        /// Whether the audio side locked the process's memory (`mlockall`, on fault).
        public var locksMemory: Bool
        /// Runs the render code through all its paths off the real-time thread, so it is
        /// resident (and locked) before that thread needs it; called after start-up's
        /// memory was given back.
        public var warmUp: () -> Void
        /// Asks the audio side to make `wakeDescriptor` readable once its position reaches
        /// the frame given (nil: no watch); nil when it cannot, and the loop then looks
        /// again every `Daemon.positionRecheckNanoseconds` once the position should be there.
        public var watchPosition: ((Int64?) -> Void)?
        /// Starts the render thread (nil: it runs already); returns whether the process's
        /// memory was locked. `Daemon.run()` calls it once start-up's memory was given back
        /// and the render code warmed up, so that the render thread never runs while the
        /// trim drops the pages of its code.
        public var start: (() throws -> Bool)?
        /// Whether the render thread, once started, has filled its buffer and woken for
        /// more: it has run every code path it runs while nothing plays.
        public var settled: () -> Bool

        public init(engine: AudioEngine, wakeDescriptor: Int32? = nil, takeLog: @escaping () -> [String] = { [] },
                    shutdown: @escaping () -> Void = {}, locksMemory: Bool = false, warmUp: @escaping () -> Void = {},
                    watchPosition: ((Int64?) -> Void)? = nil, start: (() throws -> Bool)? = nil,
                    settled: @escaping () -> Bool = { true }) {
            self.engine = engine
            self.wakeDescriptor = wakeDescriptor
            self.takeLog = takeLog
            self.shutdown = shutdown
            self.locksMemory = locksMemory
            self.warmUp = warmUp
            self.watchPosition = watchPosition
            self.start = start
            self.settled = settled
        }
    }

    /// Everything the daemon takes from the machine; tests replace parts of it.
    public struct Environment {
        public var paths = BoardInputs.Paths()
        public var clock: @Sendable () -> Int64 = monotonicNanoseconds
        /// Where `NOTIFY_SOCKET` and the watchdog settings are read.
        public var variables: [String: String] = [:]
        public var log: Log = .standardError
        /// Where a `terminal` display draws.
        public var terminal: (String) -> Void = { Log.standardError($0) }
        /// Opens the audio side for the profile's `[audio]` table and the configured priority.
        public var openAudio: (BoardProfile.Audio, Int) throws -> Audio
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

        public init(openAudio: @escaping (BoardProfile.Audio, Int) throws -> Audio) {
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
    private let appliance: Appliance
    private let inputs: BoardInputs
    private let audio: Audio
    /// Whether the audio side locked the process's memory (known once it started).
    private var memoryLocked: Bool
    private let library: Library
    private let importer: ProcessImportRunner
    private let mounts: MountWatcher
    /// Sticks the mount helper refused; nil when their folder cannot be watched (logged).
    private let refusals: StickRefusalWatcher?
    private let display: DisplayWorker
    private let signals: SignalDescriptor
    private let stopRequest: WakeDescriptor
    private let notifier: SystemdNotifier
    /// What the loop polls, built by `updatePollSet`, and what each entry belongs to.
    private var pollSet: [pollfd] = []
    private var pollSources: [Source] = []
    /// The importer's descriptors and the inputs' version `pollSet` was built for.
    private var pollImporter: [Int32] = []
    private var pollInputsVersion = -1
    /// The frame rendered last (it says when it changes: `expires`, `changesAtPosition`).
    private var lastFrame: Frame?
    /// The frames handed to the LCD's thread with it, each drawn there when due.
    private var lastUpcoming: [(time: Int64, frame: Frame)] = []
    /// How far ahead, at most, the loop hands the LCD's thread the screens to come.
    static let upcomingNanoseconds: Int64 = 2_000_000_000
    /// Times of a screen to come that differ by no more than this are the same.
    static let upcomingSlackNanoseconds: Int64 = 2_000_000
    /// An import ended since its code was last given back (`giveBackImportCode`).
    private var importRanCode = false
    /// The program's pages mapped after the last trim and warm-up: what later trims keep.
    private var residentBaseline: ResidentSet.Snapshot?
    /// When start's code is given back at the latest (`giveBackStartCode`): nil once it was,
    /// or when there is none to give back.
    private var startCodeDue: Int64?
    /// How long after READY the render thread has to fill its buffer and wake once.
    static let settleNanoseconds: Int64 = 1_000_000_000
    /// How often the loop looks whether it has, until then.
    static let settleCheckNanoseconds: Int64 = 10_000_000
    /// The core's clock counts from here (the monotonic time `run` began: the first frame
    /// is shown then), as the twin's virtual time counts from 0: a notice raised while
    /// booting (the title of the routine restored) is stamped with time 0 and must last its
    /// duration from the start, not expire at the first tick — nor while the devices were
    /// opened, which took over 1.5 s on a loaded VM, so that the title was never shown.
    private var clockOrigin: Int64

    /// Opens every device of the board. Signals are blocked from here on, so make the
    /// daemon before starting other threads.
    public init(configuration: DaemonConfiguration, profile: BoardProfile, environment: Environment) throws {
        self.configuration = configuration
        self.profile = profile
        self.environment = environment
        log = environment.log
        clockOrigin = environment.clock()
        signals = try SignalDescriptor()
        stopRequest = try WakeDescriptor()
        notifier = SystemdNotifier(environment: environment.variables)

        inputs = try BoardInputs(profile: profile, file: configuration.board, paths: environment.paths, log: log)
        let lcd = try environment.openDisplay?(profile)
            ?? Displays.open(profile, file: configuration.board, devices: environment.paths.devices,
                             terminal: environment.terminal)
        let log = self.log
        display = try DisplayWorker(ResilientDisplay(lcd, log: { log("display: \($0)") }), clock: environment.clock)
        audio = try environment.openAudio(profile.audio, configuration.realtimePriority)
        memoryLocked = audio.locksMemory

        library = try Library(directory: configuration.library, sampleRate: profile.audio.rate)
        importer = ProcessImportRunner(executable: environment.importWorker, library: library.directory,
                                       sampleRate: profile.audio.rate, environment: environment.importWorkerEnvironment)
        importer.log = { log($0) }
        mounts = try MountWatcher(root: configuration.mediaRoot, mountinfo: environment.paths.mountinfo)
        do {
            refusals = try StickRefusalWatcher(directory: configuration.stickStatus)
        } catch {
            refusals = nil
            environment.log("sticks: \(error): a stick that cannot be mounted will not be named")
        }

        var c = Appliance.Configuration()
        c.sampleRate = profile.audio.rate
        c.columns = profile.display.columns
        c.rows = profile.display.rows
        c.rom = CharacterROM(rawValue: profile.display.rom) ?? .ascii
        c.render = .standard(sampleRate: profile.audio.rate)
        // The configured default until the performer changes it in the menu (saved settings win).
        c.settings.autoImport = configuration.autoImport
        appliance = try Appliance(c, audio: audio.engine, library: library, importer: importer)
        appliance.log = { log($0) }
        appliance.logsSaves = true
        appliance.logError = { log.error($0) }
        appliance.stickSaveSpool = StickSaveSpool(directory: configuration.stickSave,
                                                  statusDirectory: configuration.stickStatus)
    }

    /// The volume label the mount helper read from a stick it mounted (its status file is
    /// named after the mount point's last component, the device: `sda1`).
    private func stickLabel(_ mount: MountEntry) -> String? {
        let device = String(mount.mountPoint.split(separator: "/").last ?? "")
        return StickRefusalWatcher.label(directory: configuration.stickStatus, device: device)
    }

    /// The appliance's state (for tests and status); read it from the loop's thread or
    /// after `run` returned.
    public var state: PlayerState { appliance.state }

    /// Asks `run` to end as SIGTERM does. Safe from any thread.
    public func stop() { stopRequest.wake() }

    /// Runs until SIGTERM, SIGINT or `stop()`, then lets the audio drain and the display
    /// show its last frame.
    public func run() throws {
        try display.start()
        var now = environment.clock()
        clockOrigin = now
        appliance.send(.clock(now - clockOrigin))
        dispatch(inputs.start(now: now), instants: [])
        // Sticks already mounted when the daemon starts are offered like new ones.
        appliance.mountsChanged(try mounts.changes(), label: stickLabel)
        if let refusals { appliance.sticksRefused(refusals.changes()) }
        show()
        // Start-up's code given back before the render thread starts (when the audio side
        // lets it wait): dropped under a running render thread, the pages of its own code
        // were faulted in again by it, in contention with the re-locking (underruns in the
        // board in a box, a fraction of a second after start).
        var trimmed: Int?
        if environment.trimsStartup {
            let trim = ResidentSet.trim(lockOnFault: audio.start == nil && audio.locksMemory)
            trimmed = trim.bytes
            audio.warmUp()
            residentBaseline = trim.mappings.snapshot()
        }
        if let start = audio.start { memoryLocked = try start() }
        // After the render thread started (SCHED_FIFO at realtime_priority, its own).
        if environment.setsControlPriority, configuration.controlPriority > 0 {
            log(ControlScheduling.raise(priority: configuration.controlPriority))
            // The LCD's thread just below it: what the loop posts is drawn at once.
            if configuration.controlPriority > 1 { log(display.raisePriority(configuration.controlPriority - 1)) }
        }
        notifier.notify("READY=1\nSTATUS=Ready: \(profile.name)")
        log("ready: \(profile.name), audio \(profile.audio.device), display \(profile.display.kind.rawValue) \(profile.display.columns)x\(profile.display.rows)")
        if let trimmed {
            log("memory: start-up code given back (\(trimmed / 1_048_576) MB of read-only mappings trimmed), "
                + "render code warmed up\(memoryLocked ? " and locked" : "")")
            // What runs once from here, the render thread's and the device's start among it
            // (0.4-0.8 MB, kept locked otherwise), goes too, once the thread has filled its
            // buffer and woken for more (`giveBackStartCode`, from the loop).
            if audio.start != nil, residentBaseline != nil {
                startCodeDue = environment.clock() + Self.settleNanoseconds
            }
        }
        now = environment.clock()

        // The loop sleeps until something can change: a descriptor (a control, the audio
        // side's reports, a mount, the importer, a signal), a control's pending deadline
        // (debounce, long press), the watchdog, or the time the frame on screen changes by
        // itself (a marquee step, a notice's end). Playing, it sleeps until the clock's next
        // second or the next beat on the LCD is heard (`positionDeadline`); nothing ticks on
        // a grid.
        let watchdogInterval = notifier.watchdogInterval.map { $0 / 2 }
        var nextWatchdog = watchdogInterval.map { now + $0 }
        var running = true
        while running {
            let screenChange = lastFrame?.expires.map { $0 + clockOrigin }
            let audioPoll = audio.wakeDescriptor == nil ? now + Self.audioPollNanoseconds : nil
            // Until start's code is given back, the loop looks whether the render thread has settled.
            let settleCheck = startCodeDue.map { min($0, now + Self.settleCheckNanoseconds) }
            var deadline = earlier(screenChange, positionDeadline(now: now))
            deadline = earlier(deadline, earlier(inputs.nextDeadline, nextWatchdog))
            deadline = earlier(deadline, earlier(audioPoll, settleCheck))
            deadline = earlier(deadline, appliance.nextSaveRetry.map { $0 + clockOrigin })
            deadline = earlier(deadline, appliance.stickSaveDeadline.map { $0 + clockOrigin })
            updatePollSet()
            let timeout = deadline.map { Int32(clamping: (max(0, $0 - environment.clock()) + 999_999) / 1_000_000) }
            environment.willPoll?(timeout ?? -1)
            let ready = poll(&pollSet, nfds_t(pollSet.count), timeout ?? -1)
            if ready < 0 && errno != EINTR { throw DaemonError.system("poll", "\(pollSet.count) descriptors", errno) }
            now = environment.clock()
            // Handling a source may change the set (an import ends, a device goes): what
            // this poll returned is read from a copy.
            let set = pollSet, sources = pollSources
            // The audio side's wake is drained before what it reported is read, not after: a
            // wake that comes meanwhile (a report, the speed's stretchers made) is then not lost.
            for (i, entry) in set.enumerated() where entry.revents != 0 {
                if case .audio = sources[i] { WakeDescriptor.drain(entry.fd) }
            }
            // The time first, so a notice that what follows shows lasts its full time; then
            // what the audio side reported, so a control acts at the position just played.
            appliance.send(.clock(now - clockOrigin))
            appliance.pollAudio()

            for (i, entry) in set.enumerated() where entry.revents != 0 {
                switch sources[i] {
                case .signal:
                    for s in signals.take() {
                        log("signal \(s == SIGTERM ? "SIGTERM" : s == SIGINT ? "SIGINT" : String(s)): stopping")
                        running = false
                    }
                case .stop:
                    stopRequest.clear()
                    running = false
                case .audio:
                    break
                case .mounts:
                    do {
                        appliance.mountsChanged(try mounts.changes(), label: stickLabel)
                    } catch {
                        log("mounts: \(error)")
                    }
                case .refusals:
                    if let refusals { appliance.sticksRefused(refusals.changes()) }
                    // The mount helper answers a save in the same folder.
                    appliance.pollStickSave()
                case .importer:
                    let wasImporting = appliance.state.importing != nil
                    appliance.pollImport()
                    if wasImporting && appliance.state.importing == nil { importRanCode = true }
                case .input(let source):
                    let events = inputs.read(source, now: now)
                    dispatch(events, instants: inputs.lastInstants)
                }
            }
            if let due = appliance.stickSaveDeadline, now - clockOrigin >= due { appliance.pollStickSave() }
            let due = inputs.advance(to: now)
            dispatch(due, instants: inputs.lastInstants)
            for line in audio.takeLog() { log(line) }
            giveBackStartCode(now: now)
            giveBackImportCode()
            show()
            if let interval = watchdogInterval, let due = nextWatchdog, now >= due {
                notifier.notify("WATCHDOG=1")
                nextWatchdog = now + interval
            }
        }
        notifier.notify("STOPPING=1")
        // Pause (the audio ramps out, the place is saved) before the audio side ends.
        appliance.send(.shuttingDown)
        // An import in flight is abandoned cleanly (its child killed): the routine it was
        // on stays as it was.
        if importer.isRunning {
            importer.cancel()
            _ = importer.waitUntilFinished()
        }
        audio.shutdown()
        for line in audio.takeLog() { log(line) }
        display.stop()
        log("stopped")
    }

    private enum Source {
        case signal, stop, audio, mounts, refusals, importer
        case input(BoardInputs.Source)
    }

    /// Rebuilds `pollSet` and `pollSources` when the descriptors changed (an import started
    /// or ended, a device came or went); most passes keep them as they are.
    private func updatePollSet() {
        let importing = importer.descriptors
        guard importing != pollImporter || inputs.descriptorsVersion != pollInputsVersion else {
            return
        }
        pollImporter = importing
        pollInputsVersion = inputs.descriptorsVersion
        let readable = Int16(POLLIN)
        var list: [(fd: Int32, events: Int16, source: Source)] = [
            (signals.fileDescriptor, readable, .signal), (stopRequest.fileDescriptor, readable, .stop),
            // mountinfo signals a change of the mount table with POLLPRI, not POLLIN.
            (mounts.fileDescriptor, MountWatcher.pollEvents, .mounts),
        ]
        list += importing.map { ($0, readable, .importer) }
        if let fd = refusals?.fileDescriptor { list.append((fd, readable, .refusals)) }
        if let fd = audio.wakeDescriptor { list.append((fd, readable, .audio)) }
        list += inputs.descriptors.map { ($0.fd, readable, .input($0.source)) }
        pollSet = list.map { pollfd(fd: $0.fd, events: $0.events, revents: 0) }
        pollSources = list.map(\.source)
    }

    /// The earlier of two optional times.
    private func earlier(_ a: Int64?, _ b: Int64?) -> Int64? {
        guard let a else { return b }
        guard let b else { return a }
        return min(a, b)
    }

    /// `instants`: when each event acted (the edge's kernel timestamp), if known for all.
    private func dispatch(_ events: [Event], instants: [Int64]) {
        for (i, event) in events.enumerated() {
            // Where the music was when the control acted: the place an A or B mark, a seek
            // or a part change takes effect, for the journal (and the system tests' twin).
            if let line = Self.controlLine(event, appliance.state) { log(line) }
            guard instants.count == events.count else {
                appliance.send(event)
                continue
            }
            let heard = appliance.hear(event, at: instants[i])
            if let line = Self.edgeLine(event, instant: instants[i], heard: heard, appliance.state) { log(line) }
            appliance.send(event)
        }
    }

    /// "control edge: press loop at 12345678901234 ns heard part 1 frame 95000" after a
    /// control's `controlLine`: the kernel timestamp (CLOCK_MONOTONIC ns) of the edge it
    /// acted at (a press's down edge, a detent) and the source frame sounding then that the
    /// control acts at ("heard none" when nothing was playing or the audio side could not
    /// say; the control then acts at the position of the line before).
    static func edgeLine(_ event: Event, instant: Int64, heard: FramePosition?, _ state: PlayerState) -> String? {
        guard let line = controlLine(event, state),
              let action = line.firstRange(of: "control: "), let at = line.firstRange(of: " at part ") else { return nil }
        let heardText = heard.map { "part \(state.partIndex + 1) frame \($0)" } ?? "none"
        return "control edge: \(line[action.upperBound..<at.lowerBound]) at \(instant) ns heard \(heardText)"
    }

    /// Drops what ran once since start-up's trim (the render thread's and the device's
    /// start), keeping every page mapped before the render thread started (so never the
    /// code it runs), once the thread has filled its buffer and woken for more, or
    /// `settleNanoseconds` after READY.
    private func giveBackStartCode(now: Int64) {
        guard let due = startCodeDue, audio.settled() || now >= due, let baseline = residentBaseline else { return }
        startCodeDue = nil
        let trim = ResidentSet.trim(keeping: baseline, lockOnFault: memoryLocked)
        residentBaseline = trim.kept
        log("memory: \(trim.bytes / 1024) KB run once while the render thread started given back")
    }

    /// An import ran code that rehearsing never runs (the decoders, resampler, hashing and
    /// SQLite writes run in the import's child process, but the daemon still reads the
    /// routines it added and scans the stick it offers); with memory locked on fault it
    /// would stay resident for good. Given back as start-up's is, once the import has ended and nothing sounds (the
    /// render code is warmed up again at once, before anything plays).
    private func giveBackImportCode() {
        guard importRanCode, environment.trimsStartup else { return }
        switch appliance.state.transport {
        case .playing, .countingDown: return
        case .stopped, .paused: break
        }
        importRanCode = false
        // Only what is new since the last trim goes: the render thread's code, which it
        // runs while paused too, stays mapped (a full trim dropped it under the running thread).
        let trimmed: Int
        if let baseline = residentBaseline {
            let trim = ResidentSet.trim(keeping: baseline, lockOnFault: memoryLocked)
            trimmed = trim.bytes
            residentBaseline = trim.kept
        } else {
            trimmed = ResidentSet.trim(lockOnFault: memoryLocked).bytes
        }
        audio.warmUp()
        log("memory: the import's code given back (\(trimmed / 1024) KB of pages mapped since the last trim dropped), render code warmed up")
    }

    /// "control: press loop at part 1 frame 96000 (playing)" for a control event, before
    /// the reducer sees it; nil for anything else.
    static func controlLine(_ event: Event, _ state: PlayerState) -> String? {
        let control: String
        switch event {
        case .buttonPressed(let button): control = "press \(button.rawValue)"
        case .buttonLongPressed(let button): control = "long press \(button.rawValue)"
        case .buttonDoublePressed(let button): control = "double press \(button.rawValue)"
        case .encoderTurned(let detents): control = "turn \(detents > 0 ? "+" : "")\(detents)"
        case .encoderTurnedHolding(let button, let detents):
            control = "turn \(detents > 0 ? "+" : "")\(detents) holding \(button.rawValue)"
        default: return nil
        }
        let transport: String
        switch state.transport {
        case .stopped: transport = "stopped"
        case .paused: transport = "paused"
        case .countingDown(let countdown): transport = "counting down \(countdown.remaining)"
        case .playing: transport = "playing"
        }
        return "control: \(control) at part \(state.partIndex + 1) frame \(state.position) (\(transport))"
    }

    /// When, playing on, the frame on screen changes with the position: the clock's next
    /// second, or the frame's own next change (a beat, a cue); nil when not playing.
    ///
    /// Where the audio side can say what is heard now (its device clock and play history),
    /// the loop times this itself (`Appliance.nextHeardChange`), and the frame it draws
    /// then is drawn at the position heard (`show`): the render thread is not woken for it,
    /// and refills only as the buffer needs. Otherwise, an audio side that can watch its
    /// position is asked to wake the loop there (nil then, unless the position is there
    /// already); else the loop looks again from the position last read, which may be a
    /// render wake old.
    private func positionDeadline(now: Int64) -> Int64? {
        guard case .playing = appliance.state.transport else {
            audio.watchPosition?(nil)
            return nil
        }
        // The LCD's thread draws the screens handed to it; the loop looks again when the
        // last of them is due.
        if let last = lastUpcoming.last, last.time > now {
            audio.watchPosition?(nil)
            return last.time
        }
        if let due = appliance.nextHeardChange(after: now, shown: lastFrame) {
            audio.watchPosition?(nil)
            return due
        }
        let target = appliance.nextScreenChange(after: appliance.state.position, shown: lastFrame)
        if let watch = audio.watchPosition {
            // Set again on every pass (one atomic store): a watch a stale position of
            // another part used up is armed again.
            watch(target)
            // Reached between the loop's read and the watch being set: look again soon
            // (not at once: a frame whose change is behind the position must not spin).
            guard audio.engine.position.frame >= target else { return nil }
            return now + Self.positionRecheckNanoseconds
        }
        let frames = max(0, target - appliance.state.position)
        let wait = frames * 1_000_000_000 / Int64(max(1, profile.audio.rate))
        return now + max(wait, Self.positionRecheckNanoseconds)
    }

    /// Draws the screen at the position heard now, and hands the LCD's thread the screens
    /// that follow it while the music plays on (`Appliance.upcomingFrames`, up to
    /// `upcomingNanoseconds` ahead and before the frame expires by itself), so that the loop
    /// wakes for the last of them, not for each second and beat.
    private func show() {
        let now = environment.clock()
        let frame = appliance.frame(at: now)
        let horizon = min(now + Self.upcomingNanoseconds, frame.expires.map { $0 + clockOrigin } ?? .max)
        let upcoming = appliance.upcomingFrames(after: now, until: horizon, shown: frame)
        // Kept even when it shows the same cells: its times are the newer ones.
        defer {
            lastFrame = frame
            lastUpcoming = upcoming
        }
        // What the LCD's thread shows now, and will show, from what was handed to it last.
        let handedLast = lastUpcoming.filter { $0.time > now }
        let showing = lastUpcoming.last(where: { $0.time <= now })?.frame ?? lastFrame
        let sameUpcoming = handedLast.count == upcoming.count
            && zip(handedLast, upcoming).allSatisfy { $0.frame == $1.frame && abs($0.time - $1.time) <= Self.upcomingSlackNanoseconds }
        guard frame != showing || !sameUpcoming else { return }
        display.post(frame == showing ? nil : frame, upcoming: upcoming)
    }
}
