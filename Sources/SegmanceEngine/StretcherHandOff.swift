import LinuxSystem
import SegmanceAudio

/// The stretch voices' way to the render thread, on the control side. None exist while the
/// speed is 100 %: the first command that takes it elsewhere starts making them on a worker
/// thread (`StretcherMaker`), and that command and every one after it wait here, in order
/// (speed changes in a row merged into the last), until they are ready; then they go to the
/// render side, the voices with the first speed change, and stay until the engine goes.
/// When no worker can be started they are made on the calling thread. What it has to say
/// goes to `takeLog()`, which the engine drains after each call.
struct StretcherHandOff {
    private let configuration: EngineConfiguration
    private let rate: Int
    private let wakeDescriptor: Int32
    /// The stretch voices, once the speed has left 100 %.
    private(set) var stretchers: StretchStorage?
    /// Whether the render side has their pool.
    private(set) var handed = false
    private var failed = false
    /// The worker making them, from the first speed other than 100 % until they are taken.
    private var maker: StretcherMaker?
    /// Commands sent while the worker makes them, in order.
    private var waiting: [QueuedCommand] = []
    private var lines: [String] = []

    init(configuration: EngineConfiguration, rate: Int, wakeDescriptor: Int32) {
        self.configuration = configuration
        self.rate = rate
        self.wakeDescriptor = wakeDescriptor
    }

    /// Commands waiting for the voices.
    var waitingCount: Int { waiting.count }
    /// Whether the worker is making them.
    var isMaking: Bool { maker != nil }

    /// Whether `queued` waits for the voices (kept here): it does while they are being made,
    /// and the first speed other than 100 % starts making them.
    mutating func holds(_ queued: QueuedCommand) -> Bool {
        if maker == nil {
            guard needsStretchers(queued.command.command) else { return false }
            guard let started = StretcherMaker(configuration: configuration, rate: rate,
                                               wakeDescriptor: wakeDescriptor) else {
                lines.append("audio: no thread to make the stretchers on; made on the control side")
                return false
            }
            maker = started
        }
        // Speed changes in a row while waiting (an encoder turned on): only the last sounds.
        if let last = waiting.last, last.frame == QueuedCommand.nextBoundary,
           queued.frame == QueuedCommand.nextBoundary,
           case .setSpeed = last.command.command, case .setSpeed = queued.command.command {
            waiting[waiting.count - 1] = queued
        } else {
            waiting.append(queued)
        }
        return true
    }

    /// Whether `command` needs voices the render side does not have yet.
    private func needsStretchers(_ command: RenderCommand) -> Bool {
        guard !handed, stretchers == nil, !failed, case .setSpeed(let percent) = command,
              percent != 100 else { return false }
        return Renderer.stretchVoices(configuration.render) > 0
    }

    /// When the worker is done (or, with `wait`, once it is): takes its voices and returns
    /// the commands that waited, in order, for the engine to queue (`attaching` each).
    mutating func takeReady(wait: Bool) -> [QueuedCommand] {
        guard let worker = maker, wait || worker.isDone else { return [] }
        maker = nil
        let (made, nanoseconds) = worker.take()
        let waited = (monotonicNanoseconds() - worker.started) / 1_000_000
        adopt(made, reason: "speed", nanoseconds: nanoseconds,
              note: " on a worker thread; the speed change waited \(waited) ms "
                + "for them, \(waiting.count) command(s) held meanwhile")
        defer { waiting.removeAll() }
        return waiting
    }

    /// `queued` with the voices to hand over with it: with a speed other than 100 %, until
    /// the render side has them (made here if the worker did not make them); none otherwise.
    mutating func attaching(_ queued: QueuedCommand) -> QueuedCommand {
        guard !handed, case .setSpeed(let percent) = queued.command.command, percent != 100 else { return queued }
        prepare(for: "speed \(percent) %")
        var attached = queued
        attached.stretchers = stretchers?.pool ?? .empty
        return attached
    }

    /// The render side took a command that carried the voices.
    mutating func noteHanded() { handed = true }

    /// Makes the voices now, on the calling thread, unless made or refused before.
    mutating func prepare(for reason: String) {
        guard stretchers == nil && !failed else { return }
        let started = monotonicNanoseconds()
        let made = RenderWarmUp.makeStretchers(configuration, sampleRate: rate)
        adopt(made, reason: reason, nanoseconds: monotonicNanoseconds() - started)
    }

    /// Keeps the voices made (by the worker or here), or notes that they could not be.
    private mutating func adopt(_ made: StretchStorage?, reason: String, nanoseconds: Int64, note: String = "") {
        if let made {
            made.resetSparesOnTheControlSide()
            stretchers = made
            lines.append("audio: \(reason): \(made.pool.engineCount) stretchers made for \(made.pool.count) voices "
                + "and warmed up in \(nanoseconds / 1_000_000) ms\(note)")
        } else {
            failed = true
            if Renderer.stretchVoices(configuration.render) > 0 {
                lines.append("audio: the stretchers could not be made; the speed stays 100 %")
            }
        }
    }

    /// Resets the spare stretchers the render side swapped out at its stream starts (so that
    /// a reset, which calls the heap from Rubber Band 3.2 on, never runs on the render thread).
    func resetUsedSpares() { stretchers?.resetUsedSpares() }

    /// Waits for a worker still making voices (the engine is going).
    func waitForWorker() { maker?.wait() }

    /// What happened since the last call, as log lines.
    mutating func takeLog() -> [String] {
        defer { lines.removeAll() }
        return lines
    }
}
