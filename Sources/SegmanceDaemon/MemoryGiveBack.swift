import SegmanceAppliance

/// The one owner of what the daemon gives back of its memory (`ResidentSet`): start-up's
/// code once ready, what ran once while the render thread started, and an import's code
/// once it ended; each time the render code is warmed up again before it can play.
final class MemoryGiveBack: LoopSource {
    private let audio: DaemonAudio
    private let context: LoopContext
    /// Whether anything is given back (`Daemon.Environment.trimsStartup`).
    private let enabled: Bool
    /// Whether the audio side locked the process's memory (known once it started).
    var memoryLocked: Bool
    /// The program's pages mapped after the last trim and warm-up: what later trims keep.
    private var baseline: ResidentSet.Snapshot?
    /// When start's code is given back at the latest: nil once it was, or when there is none.
    private var startCodeDue: Int64?
    /// An import ended since its code was last given back.
    private var importRanCode = false

    /// How long after READY the render thread has to fill its buffer and wake once.
    static let settleNanoseconds: Int64 = 1_000_000_000
    /// How often the loop looks whether it has, until then.
    static let settleCheckNanoseconds: Int64 = 10_000_000

    init(_ audio: DaemonAudio, enabled: Bool, context: LoopContext) {
        self.audio = audio
        self.enabled = enabled
        self.context = context
        memoryLocked = audio.locksMemory
    }

    /// Start-up's code given back before the render thread starts (when the audio side lets
    /// it wait): dropped under a running render thread, the pages of its own code were
    /// faulted in again by it, in contention with the re-locking (underruns in the board in
    /// a box, a fraction of a second after start). Returns the bytes trimmed; nil when disabled.
    func giveBackStartup() -> Int? {
        guard enabled else { return nil }
        let trim = ResidentSet.trim(lockOnFault: !audio.startsLater && audio.locksMemory)
        audio.warmUp()
        baseline = trim.mappings.snapshot()
        return trim.bytes
    }

    /// What runs once from READY, the render thread's and the device's start among it
    /// (0.4-0.8 MB, kept locked otherwise), goes too, once the thread has filled its buffer
    /// and woken for more (`settleNanoseconds` at the latest).
    func ready(now: Int64) {
        if enabled, audio.startsLater, baseline != nil { startCodeDue = now + Self.settleNanoseconds }
    }

    /// An import ended: its code goes once nothing sounds.
    func importEnded() { importRanCode = true }

    /// Until start's code is given back, the loop looks whether the render thread has settled.
    func deadline(now: Int64) -> Int64? { startCodeDue.map { min($0, now + Self.settleCheckNanoseconds) } }

    func handle(ready: [Int32], now: Int64) {
        giveBackStartCode(now: now)
        giveBackImportCode()
    }

    /// Drops what ran once since start-up's trim, keeping every page mapped before the
    /// render thread started (so never the code it runs).
    private func giveBackStartCode(now: Int64) {
        guard let due = startCodeDue, audio.settled || now >= due, let baseline else { return }
        startCodeDue = nil
        let trim = ResidentSet.trim(keeping: baseline, lockOnFault: memoryLocked)
        self.baseline = trim.kept
        context.log.info("memory: \(trim.bytes / 1024) KB run once while the render thread started given back")
    }

    /// An import ran code that rehearsing never runs (the decoders, resampler, hashing and
    /// SQLite writes run in the import's child process, but the daemon still reads the
    /// routines it added and scans the stick it offers); with memory locked on fault it
    /// would stay resident for good. Given back as start-up's is, once the import has ended
    /// and nothing sounds (the render code is warmed up again at once, before anything plays).
    private func giveBackImportCode() {
        guard importRanCode, enabled else { return }
        switch context.appliance.state.transport {
        case .playing, .countingDown: return
        case .stopped, .paused: break
        }
        importRanCode = false
        // Only what is new since the last trim goes: the render thread's code, which it
        // runs while paused too, stays mapped (a full trim dropped it under the running thread).
        let trimmed: Int
        if let baseline {
            let trim = ResidentSet.trim(keeping: baseline, lockOnFault: memoryLocked)
            trimmed = trim.bytes
            self.baseline = trim.kept
        } else {
            trimmed = ResidentSet.trim(lockOnFault: memoryLocked).bytes
        }
        audio.warmUp()
        context.log.info("memory: the import's code given back (\(trimmed / 1024) KB of pages mapped since the last "
                         + "trim dropped), render code warmed up")
    }
}
