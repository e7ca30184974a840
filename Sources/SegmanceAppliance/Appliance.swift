import SegmanceAudio
import SegmanceControls
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceStick
import Speech
import StickTransfer
import StickWatch

/// The appliance's wiring: one owner of the state that takes events from every source in
/// order, runs the reducer and carries out its effects. The daemon drives it on a board;
/// the twin in virtual time (`SegmanceTwin`); the interactive simulator in real time.
/// Not thread-safe: one control loop owns it.
public final class Appliance {
    public struct Configuration: Sendable {
        public var sampleRate: Int = 48_000
        public var columns: Int = 16
        public var rows: Int = 2
        /// The display's character ROM (`display.rom` of the board profile): the common
        /// HD44780's A00 unless the board says otherwise.
        public var rom: CharacterROM = .a00
        public var settings = Settings()
        /// The most volume the box starts at (percent): a louder saved one is capped to it at boot.
        public var startVolumeMaximum = Settings.startVolumeMaximum
        /// Which input line is which control, for `edge(_:)`: none by default (the daemon
        /// and the interactive simulator send events); the twin sets its board's.
        public var controlMap = ControlMap(buttons: [:])
        /// With stretch voices: the speed can change (`RenderCommand.setSpeed`).
        public var render = RenderConfig(stretchVoices: 3)
        /// What speaks the counts when the count voice is spoken (`SpokenCounts`).
        public var speech = EspeakSpeech()
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var state: PlayerState
    private var controls: Controls
    /// The audio side: the real-time engine, or the twin's direct renderer.
    public let audio: AudioEngine
    /// The routine library: what plays, and where settings, loops and resume are kept.
    public let library: Library
    /// Runs imports off the control loop (the daemon) or in line (the twin).
    public let importer: ImportRunner
    /// The library's PCM, mapped; mappings live as long as the appliance, because the
    /// render side may still hold a pointer into any of them.
    private let media: LibraryMedia
    /// Keeps resident only what the render side is about to read.
    private let residency: PlaybackResidency
    /// The stick most recently inserted (the twin's `unstick` removes it).
    private var lastStick: String?
    /// The stick that is in now (nil once it went away): where *Save to stick* writes.
    var stickIn: String?
    /// On a device: where *Save to stick* hands its routines to the mount helper, which alone
    /// may write the stick (nil: written straight into the stick's folder, as the twin does).
    public var stickSaveSpool: StickSaveSpool?
    /// A save the mount helper has not answered yet: its request's id, the routines, and
    /// when to give up waiting (the clock of `.clock` events).
    var pendingStickSave: (id: String, titles: [String], deadline: Int64)?
    /// The volume label of each stick inserted, by path: it names the routine of its loose songs.
    private var stickLabels: [String: String] = [:]
    /// Parts the render side has been given (loads sent) or moved to (advances reported):
    /// its `PlayedSpan.part` for the part the core is on, once both have caught up.
    private var partsStarted: UInt32 = 0
    /// The spoken counts, once loaded: kept as long as the appliance, because the render
    /// side may still hold a pointer into them.
    private var countWords: CountWordStorage?
    /// Announcements spoken so far (a class set's next titles), by text, and the last asked for.
    private var announcements: [String: CountWordStorage] = [:]
    private var lastAnnouncement = ""
    /// Where log lines go (stderr in the CLI). Not part of the twin's deterministic output.
    public var log: (String) -> Void = { _ in } {
        didSet {
            // Lines of the boot (the appliance logs from `init`, before its owner sets this).
            let early = bootLog ?? []
            bootLog = nil
            for line in early { log(line) }
        }
    }
    /// Lines logged before `log` was set; nil once it is.
    private var bootLog: [String]? = []
    /// Log each write to the library before it starts ("saving: …") and when it is durable
    /// ("saved: …"), with what it writes: the daemon's journal says what a power cut may
    /// have interrupted (Tests/System/power-cut.sh judges the library by these lines).
    public var logsSaves = false
    /// Where lines of error priority go (the daemon marks them for journald); `log` when nil.
    public var logError: ((String) -> Void)?
    /// Where lines of warning priority go (a refused stick, a file problem); `log` when nil.
    public var logWarning: ((String) -> Void)?
    /// Saves that failed (the card full, a write error), the newest of each kind and target,
    /// in the order they were asked for: retried every `saveRetryNanoseconds` and before the
    /// next save, until they land. What was saved before each stays on the card.
    public private(set) var unsaved: [Persist] = []
    /// When the saves that failed are tried again (the clock of `.clock` events); nil when none wait.
    public private(set) var nextSaveRetry: Int64?
    /// How long after a failed save it is tried again.
    public static let saveRetryNanoseconds: Int64 = 10_000_000_000

    /// An appliance playing from `library` (a fresh temporary one when nil), importing with
    /// `importer` (in line when nil), with `audio` as its audio side. At once it boots and
    /// restores what the library holds: routines, settings, and the part and position the
    /// performer left off at.
    public init(_ configuration: Configuration, audio: AudioEngine, library: Library? = nil,
                importer: ImportRunner? = nil) throws {
        self.configuration = configuration
        state = PlayerState(sampleRate: Int64(configuration.sampleRate), settings: configuration.settings,
                            startVolumeMaximum: configuration.startVolumeMaximum)
        state.display = DisplaySize(columns: configuration.columns, rows: configuration.rows)
        controls = Controls(map: configuration.controlMap)
        self.audio = audio
        self.library = try library ?? Library.temporary("segmance-library", sampleRate: configuration.sampleRate)
        guard self.library.sampleRate == configuration.sampleRate else {
            throw LibraryError(directory: self.library.directory, action: "play at \(configuration.sampleRate) Hz",
                               reason: "its audio is stored at \(self.library.sampleRate) Hz")
        }
        self.importer = importer ?? InlineImportRunner(importer: Importer(library: self.library))
        media = LibraryMedia(library: self.library)
        residency = PlaybackResidency(window: .init(sampleRate: configuration.sampleRate))
        send(.booted)
        send(.restored(try self.library.snapshot()))
    }

    /// The screen as the LCD would show it now.
    public var frame: Frame {
        Screen.render(state, columns: configuration.columns, rows: configuration.rows, rom: configuration.rom)
    }

    /// What the LCD shows when (`ScreenSchedule`): drawn as this appliance's display is, on
    /// the audio side's heard clock, whose time `clockOrigin` is the core's 0.
    public func screenSchedule(clockOrigin: Int64 = 0) -> ScreenSchedule {
        ScreenSchedule(columns: configuration.columns, rows: configuration.rows, rom: configuration.rom,
                       part: partsStarted, clockOrigin: clockOrigin) { [audio] in audio.heard(at: $0) }
    }

    /// The screen now and those to come at `instant`, and when to look again
    /// (`ScreenSchedule.plan`).
    public func screenPlan(at instant: Int64, clockOrigin: Int64 = 0) -> ScreenSchedule.Plan {
        screenSchedule(clockOrigin: clockOrigin).plan(state, at: instant)
    }

    /// The screen at `instant` (the audio side's clock: CLOCK_MONOTONIC ns on the board):
    /// while the music plays, drawn at the position heard then (`heardPosition(at:)`), so
    /// the clock and the beat change on the LCD as they sound, not when the audio side last
    /// reported (with a deep buffer, a refill a few times a second). Otherwise `frame`.
    public func frame(at instant: Int64) -> Frame {
        screenSchedule().frame(state, at: instant)
    }

    /// The source frame of the part playing that sounded at `instant`, from the audio side's
    /// clock and play history; nil unless the music plays and that frame is of the part the
    /// core is on (counting in, paused, or a part not heard yet: the core's position stands).
    public func heardPosition(at instant: Int64) -> FramePosition? {
        screenSchedule().heardPosition(state, at: instant)
    }

    /// When, after `instant`, the screen drawn as heard next changes with the position
    /// (`ScreenSchedule.nextChange`); nil where nothing is heard.
    public func nextHeardChange(after instant: Int64, shown: Frame?) -> Int64? {
        let schedule = screenSchedule()
        guard let now = schedule.heardNow(state, at: instant) else { return nil }
        return schedule.nextChange(state, now, at: instant, shown: shown)
    }

    /// The screens the LCD will show after `instant` while nothing is sent, each with the
    /// time it is due, before `until` (`ScreenSchedule.upcoming`); empty where nothing is heard.
    public func upcomingFrames(after instant: Int64, until: Int64, shown: Frame) -> [(time: Int64, frame: Frame)] {
        let schedule = screenSchedule()
        guard let now = schedule.heardNow(state, at: instant) else { return [] }
        return schedule.upcoming(state, now, at: instant, until: until, shown: shown)
    }

    /// The position at which the screen drawn at `position` next changes with it: the
    /// clock's next second, or `shown`'s own next change (a beat, a cue), whichever first.
    public func nextScreenChange(after position: FramePosition, shown: Frame?) -> FramePosition {
        ScreenSchedule.nextScreenChange(state, after: position, shown: shown)
    }

    /// The earliest time the controls have something pending (long press, double-press window).
    public var nextControlDeadline: Int64? { controls.nextDeadline }

    /// Runs the reducer on one event and carries out its effects.
    public func send(_ event: Event) {
        defer {
            // After the clock moved, so that what the retry tells the core lasts its full time.
            if case .clock(let now) = event, let due = nextSaveRetry, now >= due { retryUnsaved() }
        }
        for effect in Rules.reduce(&state, event) {
            switch effect {
            case .audio(let command, let epoch):
                perform(command, epoch: epoch)
            case .persist(let persist):
                retryUnsaved()
                save(persist)
                // A routine made on the box is the library's to make (it knows the songs' lengths).
                if case .newRoutine = persist { reloadRoutines() }
            case .importStick(let path):
                importer.start(path, label: stickLabels[path])
                pollImport()
            case .cancelImport:
                importer.cancel()
            case .saveToStick:
                saveToStick()
            }
        }
    }

    /// Writes `persist` to the library; a failure is logged at error priority, kept to be
    /// tried again and told to the core (the LCD says it was not saved).
    private func save(_ persist: Persist, retry: Bool = false) {
        if logsSaves { log("saving: \(Self.describe(persist))") }
        do {
            let saved = try library.apply(persist)
            if logsSaves {
                let what = Self.describe(persist)
                log(saved ? "saved: \(what)" : "not saved (its part is gone): \(what)")
            }
            unsaved.removeAll { Self.sameTarget($0, persist) }
        } catch {
            let full = (error as? LibraryError)?.isDiskFull == true
            (logError ?? log)("not saved\(retry ? " again" : ""): \(Self.describe(persist)): \(error)")
            unsaved.removeAll { Self.sameTarget($0, persist) }
            unsaved.append(persist)
            nextSaveRetry = state.now + Self.saveRetryNanoseconds
            if !retry { send(.saveFailed(diskFull: full)) }
        }
        if unsaved.isEmpty { nextSaveRetry = nil }
    }

    /// Tries the saves that failed again, oldest first; when the last lands the core hears so.
    private func retryUnsaved() {
        guard !unsaved.isEmpty else { return }
        for persist in unsaved { save(persist, retry: true) }
        if unsaved.isEmpty {
            log("saved now: every save that had failed")
            send(.unsavedWorkSaved)
        }
    }

    /// A raw input edge from a line of the board.
    public func edge(_ edge: Edge) {
        deliver(controls.process(.time(edge.timestamp)))
        deliver(controls.process(.edge(edge)))
    }

    /// An event straight from a key (the terminal, an evdev device with kernel debounce).
    public func key(_ button: Button, pressed: Bool, at time: Int64) {
        deliver(controls.process(.key(button, pressed: pressed, timestamp: time)))
    }

    /// Moves the monotonic clock: pending gestures resolve, notices expire.
    public func advance(to now: Int64) {
        deliver(controls.process(.time(now)))
        send(.clock(now))
    }

    private func deliver(_ timed: [TimedEvent]) {
        take(timed.map { TimedEvent($0.event, at: controls.instant(of: $0)) })
    }

    /// Events from the drivers, each stamped with the instant it acted (in the inputs' time
    /// base: the kernel timestamp of a press's down edge or of a detent, the twin's virtual
    /// time), in order: for each, the frame heard then (`hear`), `willSend` told of the
    /// event and that frame (nil: none), then the event.
    public func take(_ events: [TimedEvent], willSend: (TimedEvent, FramePosition?) -> Void = { _, _ in }) {
        for timed in events {
            let heard = hear(timed.event, at: timed.timestamp)
            willSend(timed, heard)
            send(timed.event)
        }
    }

    /// A control event that acted at `instant`: `take` of that one event.
    public func control(_ event: Event, at instant: Int64) {
        take([TimedEvent(event, at: instant)])
    }

    /// Before a control event that acted at `instant`: while audio plays, the core learns
    /// the source frame that was sounding then (`Event.heard`), from the audio side's clock
    /// and play history — if that frame is of the part the core is on. Returns the frame
    /// the core took (clamped to the part), nil when none.
    @discardableResult
    public func hear(_ event: Event, at instant: Int64) -> FramePosition? {
        guard Self.isControl(event), case .playing = state.transport, let heard = audio.heard(at: instant),
              heard.part == partsStarted else { return nil }
        send(.heard(heard.sourceFrame))
        return state.heard
    }

    static func isControl(_ event: Event) -> Bool {
        switch event {
        case .buttonPressed, .buttonLongPressed, .buttonDoublePressed, .encoderTurned, .encoderTurnedHolding,
             .editRequested: true
        default: false
        }
    }

    /// Feeds what the audio side reported, and where it is, to the core; the resident
    /// window of the media follows the play head.
    public func pollAudio() {
        // Reports are taken out first: handling one may send the audio side new commands.
        for report in audio.takeReports() {
            if report.kind == .advanced {
                residency.nextTookOver()
                partsStarted &+= 1
            }
            send(.audio(report))
        }
        // The audio side's position is the truth while it runs; stopped or paused, the
        // core's is (a seek while paused, a resume point restored at boot).
        switch state.transport {
        case .playing, .countingDown:
            let (frame, epoch) = audio.position
            residency.advance(to: frame)
            send(.audio(AudioReport(epoch: epoch, .position(frame))))
        case .paused, .stopped:
            break
        }
    }

    // MARK: - Sticks and imports

    /// A stick appeared at `path` (mounted, or the twin's `stick` action) with the volume
    /// label `label` (nil: none): a quick scan says what is on it, and the core offers it
    /// or, with *Auto import*, imports it.
    public func stickInserted(_ path: String, label: String? = nil) {
        lastStick = path
        stickIn = path
        stickLabels[path] = label
        let scan = StickScanner().scan(path, label: label)
        for problem in scan.problems { warn("stick \(path): \(problem)") }
        // Offered: what the import will bring in, not every folder that looks like a routine.
        let routines = scan.routines.filter(RoutineBuilder.promisesParts)
        let refused = scan.routines.filter { $0.manifest != nil && !RoutineBuilder.promisesParts($0) && $0.hasMusic }
        for routine in refused {
            warn("stick \(path): \(routine.relative.isEmpty ? "." : routine.relative): its routine.toml has problems"
                + " (segmance stick check names them): not offered")
        }
        if routines.isEmpty && refused.isEmpty { warn("stick \(path): no music: \(StickScanner.lookedFor)") }
        send(.stickInserted(StickOffer(path: path, routines: routines.count, refused: refused.count)))
    }

    /// Inserts the stick at `path` and imports it at once, as if the performer had answered
    /// the offer (`sim --stick`, tools and benchmarks).
    public func importStick(_ path: String, label: String? = nil) {
        stickInserted(path, label: label)
        send(.importRequested)
    }

    /// The stick at `path` went away; an import from it stops, what was imported stays.
    public func stickRemoved(_ path: String) {
        if stickIn == path { stickIn = nil }
        send(.stickRemoved(path: path))
    }

    /// The most recently inserted stick went away (the twin's `unstick`).
    public func removeStick() {
        stickRemoved(lastStick ?? "")
    }

    /// Sticks mounted and unmounted under the media root (from a `MountWatcher`); `label`
    /// gives a mounted stick's volume label (the mount helper's status file).
    public func mountsChanged(_ changes: [MountChange], label: (MountEntry) -> String? = { _ in nil }) {
        for change in changes {
            switch change {
            case .appeared(let mount): stickInserted(mount.mountPoint, label: label(mount))
            case .disappeared(let mount): stickRemoved(mount.mountPoint)
            }
        }
    }

    /// Sticks the mount helper refused (from a `StickRefusalWatcher`): the log has the
    /// helper's sentence, the LCD names the problem.
    public func sticksRefused(_ refusals: [StickRefusal]) {
        for refusal in refusals {
            warn("stick: \(refusal.message)")
            send(.stickRefused(refusal))
        }
    }

    /// Takes what the import reported and hands it to the core: progress, problems (the
    /// problems view and the log), routines as each one is committed, the summary at the end. The daemon
    /// calls this when the runner's descriptor is readable.
    public func pollImport() {
        for event in importer.takeEvents() {
            switch event {
            case .started:
                break
            case .progress(let progress):
                send(.importProgress(progress))
            case .problem(let problem):
                warn("import: \(problem)")
                send(.problemFound(FileProblem(file: problem.path, reason: problem.reason)))
            case .note(let note):
                log("import: note: \(note)")
            case .routine(let title, let outcome):
                log("import: \(title): \(outcome.rawValue)"
                    + (outcome == .addedBeside ? " (a different routine has its title)" : ""))
                if outcome != .unchanged { reloadRoutines() }
            case .routineFailed(let title, let reason):
                warn("import: \(title) not imported: \(reason)")
            case .finished(let summary):
                send(.importFinished(summary))
                reloadClassSets()
            }
        }
    }

    /// Offers the library's class sets again (after an import: a class.toml).
    public func reloadClassSets() {
        do {
            let sets = try library.classSets()
            if sets != state.classSets { send(.classSetsLoaded(sets)) }
        } catch {
            log("\(error)")
        }
    }

    /// Offers the library's routines again (after an import, or a removal by the CLI).
    public func reloadRoutines() {
        do {
            send(.routinesLoaded(try library.routines()))
        } catch {
            log("\(error)")
        }
    }

    // MARK: - Audio

    /// Resolves the parts a command names to mapped PCM, makes what is about to play
    /// resident (before the render side can read it), and hands the command over.
    private func perform(_ command: AudioCommand, epoch: UInt32) {
        var failure: (any Error)?
        var segment: PlaybackResidency.Segment?
        if case .setCountVoice(.spoken) = command { loadCountWords() }
        if case .announce(let text, _) = command { loadAnnouncement(text) }
        let resolved = RenderCommand(command, words: countWords?.words ?? .none,
                                     announcement: announcements[lastAnnouncement]?.words ?? .none) { part in
            do {
                let found = try self.media.segment(part)
                segment = found
                return PCMSlice(base: found.media.base + Int(found.start) * 2, frames: found.length)
            } catch {
                failure = error
                return nil
            }
        }
        guard let resolved else {
            warn("audio for \(command) is not available: \(failure.map { "\($0)" } ?? "?")")
            return
        }
        switch command {
        case .load:
            if let segment { residency.load(segment, at: state.position) }
        case .setNext:
            residency.setNext(segment)
        case .setLoop(let region):
            // Its lead-in plays on every repeat: resident with it.
            residency.setLoop(region.map { max(0, $0.range.lowerBound - $0.leadIn)..<$0.range.upperBound })
        case .play(let from, _), .countIn(let from, _), .playAfter(_, let from, _, _):
            residency.jump(to: from)
        case .seek(let to):
            residency.jump(to: to)
        case .pause, .stop, .stopFading, .setVolume, .setSpeed, .setCountVoice, .announce:
            break
        }
        if case .load = resolved { partsStarted &+= 1 }
        audio.send(StampedCommand(resolved, epoch: epoch))
    }

    /// Makes `text` spoken ready in memory (from the library's cache, or spoken with espeak-ng
    /// and cached), kept as long as the appliance (a command may still name it); when it cannot
    /// be made, says why in the log and nothing is announced.
    private func loadAnnouncement(_ text: String) {
        lastAnnouncement = text
        guard announcements[text] == nil else { return }
        let counts = SpokenCounts(library: library.directory, sampleRate: configuration.sampleRate,
                                  speech: configuration.speech)
        do {
            announcements[text] = CountWordStorage([try counts.sound(text)])
        } catch {
            note("\(error); not announced")
        }
    }

    /// Makes the spoken counts ready in memory (from the library's cache, or spoken with
    /// espeak-ng and cached) before the render side is told to use them; when they cannot
    /// be made, says why in the log and the counts stay ticks.
    private func loadCountWords() {
        guard countWords == nil else { return }
        let counts = SpokenCounts(library: library.directory, sampleRate: configuration.sampleRate,
                                  speech: configuration.speech)
        do {
            let loaded = try counts.load()
            for problem in loaded.problems { note("\(problem)") }
            countWords = CountWordStorage(loaded.sounds)
            note("spoken counts: \(loaded.sounds.count) words ready, \(loaded.spoken) spoken now by "
                 + "\(counts.speech.identity), the others from \(counts.directory)")
        } catch {
            note("\(error); counting with ticks")
        }
    }

    /// Logs `line`, or keeps it for `log` when that is not set yet (at boot).
    /// A line of warning priority.
    func warn(_ line: String) { (logWarning ?? log)(line) }

    private func note(_ line: String) {
        if bootLog != nil { bootLog?.append(line) } else { log(line) }
    }
}
