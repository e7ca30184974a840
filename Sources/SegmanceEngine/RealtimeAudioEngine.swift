import ALSA
import Atomics
import LinuxSystem
import SegmanceAudio
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// The real-time audio engine: the render function (`Renderer`) on one dedicated pthread,
/// period by period into an ALSA PCM.
///
/// **Control side** (one thread, e.g. the daemon's poll loop): `start()`, `send(_:)`,
/// `takeReports()`, `position`, `takeLog()`, `stop(drain:)`. Poll `wakeDescriptor`
/// (an eventfd, readable when the render thread has pushed reports or events) and call
/// `takeReports()` (the `Appliance` does, in `pollAudio()`) and `takeLog()` when it fires.
///
/// **Render side**: see `RenderContext` and its loops (`RenderLoop.swift`). The two sides
/// share only `RenderShared`: a lock-free SPSC command ring, an SPSC event ring and atomics
/// (the position, the play history and the device's clock under `Seqlock`s, frames handed
/// to ALSA, xrun count, device delay).
///
/// **Timing of commands.** `send(_ command:)` applies at the next period boundary the
/// render thread reaches; `send(_ timed:)` applies at exactly `timed.frame` of the output
/// (splitting a period there), which makes a run replayable frame for frame.
///
/// **Speed.** No stretcher exists while the speed is 100 %: the first command that takes it
/// elsewhere starts making `configuration.render.stretchVoices` stretchers on a worker thread
/// (`StretcherMaker`), which warms them and the render code that uses them up (so, with memory
/// locked on fault, the render thread takes no page fault on them). `send` returns at once:
/// that command, and every command sent after it until they are ready, wait on the control
/// side in order (speed changes in a row are merged into the last); when the worker is done
/// it makes `wakeDescriptor` readable, and the next `takeReports()` (or `send`) hands the
/// stretchers to the render side with the speed command and the waiting commands after it.
/// They stay until the engine goes.
///
/// **Deep buffer** (`configuration.rewind`, see `RewindingRenderLoop.swift`): the thread keeps the
/// whole device buffer full and sleeps until three quarters of it have played; a command wakes it
/// (an eventfd), and it rewinds the device to apply the command at the first chunk boundary
/// the guard past the play head (a timed command: at its frame, if that is still ahead of
/// the guard). Reports and the position then describe what has played up to the guard.
///
/// Not thread-safe on the control side: one thread owns the engine.
public final class RealtimeAudioEngine: AudioEngine {
    /// How the render thread is scheduled and whether memory is locked.
    public struct Scheduling: Equatable, Sendable {
        /// The SCHED_FIFO priority granted, nil for normal scheduling.
        public var fifoPriority: Int32?
        /// Whether `mlockall` succeeded.
        public var memoryLocked: Bool
    }

    public let configuration: EngineConfiguration
    /// The PCM written to; the engine keeps it open for its lifetime.
    public let device: PCMDevice
    /// What the device granted (period and buffer sizes may differ from the request).
    public let granted: PCMConfiguration
    /// Known once `start()` returned.
    public private(set) var scheduling: Scheduling?
    /// Keep a `CommandTiming` for every period in which commands applied
    /// (`takeTimings()`), for latency figures.
    public var recordsTimings = false

    /// What the control side and the render thread share.
    private let shared: UnsafeMutablePointer<RenderShared>
    /// The render thread's own context (it alone touches it while it runs).
    private let renderThread: UnsafeMutablePointer<RenderThread>
    /// Readable when the render thread has pushed reports or events.
    private let wakeEvents: EventDescriptor
    /// With rewinds: wakes the render thread for a command.
    private let commandEvents: EventDescriptor?
    private var reportedRefusals = 0
    private var thread: SystemThread?
    private var stopped = false
    private var logLines: [String] = []
    private var timings: [CommandTiming] = []
    private var reportedDrops = 0
    /// The stretch voices' way to the render side (the first speed other than 100 %).
    private var handOff: StretcherHandOff

    /// Opens `configuration.device` and configures it.
    public convenience init(configuration: EngineConfiguration) throws(EngineError) {
        try self.init(configuration: configuration, probe: NoRenderProbe())
    }

    /// Opens `configuration.device` and configures it, with `probe` run on the render thread.
    public convenience init<Probe: RenderProbe>(configuration: EngineConfiguration,
                                                probe: Probe) throws(EngineError) {
        try configuration.validate()
        let device: PCMDevice
        do {
            device = try PCMDevice(name: configuration.device)
        } catch {
            throw .device(error)
        }
        try self.init(output: device, configuration: configuration, probe: probe)
    }

    /// Configures `output` (format, rate, period, periods from `configuration`; its
    /// `device` is not used) and prepares everything the render thread will use.
    public convenience init(output: PCMDevice, configuration: EngineConfiguration) throws(EngineError) {
        try self.init(output: output, configuration: configuration, probe: NoRenderProbe())
    }

    /// The same, with `probe` run on the render thread (a test's or a benchmark's).
    public init<Probe: RenderProbe>(output: PCMDevice, configuration: EngineConfiguration,
                                    probe: Probe) throws(EngineError) {
        try configuration.validate()
        device = output
        do {
            granted = try output.configure(configuration.pcmRequest)
        } catch {
            throw .device(error)
        }
        // A rewind reads a stretched stream's output again from its ring, as far back as
        // the buffer granted (and a stretcher's burst) reaches.
        var adjusted = configuration
        if configuration.rewind != nil {
            let reach = (granted.bufferFrames ?? granted.requestedBufferFrames) + StretchPool.burstFrames
            adjusted.render.stretchRingFrames = max(adjusted.render.stretchRingFrames, reach)
        }
        self.configuration = adjusted
        var pollFDs: [pollfd] = []
        if configuration.rewind != nil {
            do { pollFDs = try output.pollDescriptors() } catch { throw .device(error) }
        }
        do {
            wakeEvents = try EventDescriptor()
            commandEvents = configuration.rewind == nil ? nil : try EventDescriptor()
        } catch {
            throw .system(error)
        }
        let fd = wakeEvents.fileDescriptor
        let commandFD = commandEvents?.fileDescriptor ?? -1
        handOff = StretcherHandOff(configuration: adjusted, rate: granted.rate, wakeDescriptor: fd)
        shared = .allocate(capacity: 1)
        shared.initialize(to: RenderShared(sampleRate: granted.rate, commandCapacity: configuration.commandCapacity,
                                           eventCapacity: configuration.eventCapacity, wakeFD: fd,
                                           commandFD: commandFD))
        renderThread = .allocate(capacity: 1)
        renderThread.initialize(to: RenderThread(RenderContext(
            shared: shared, renderer: Renderer(sampleRate: granted.rate, config: configuration.render,
                                               deferringStretchers: true),
            pcm: output.realtime, configuration: granted, rewind: configuration.rewind, pcmPollFDs: pollFDs,
            probe: probe)))
        // Instantiate the rings' generic metadata here, not on the render thread's first use.
        _ = shared.pointee.commands.peek()
        _ = shared.pointee.events.peek()
        _ = shared.pointee.events.pop()
        // And the render function's: the first use of a protocol conformance in a process
        // allocates its witness table (seen: `MainMode`'s Equatable in a debug build, on the
        // render thread of the first engine a test process started).
        RenderWarmUp.run(configuration)
    }

    deinit {
        stop(drain: false)
        handOff.waitForWorker()
        renderThread.pointee.destroy()
        renderThread.deinitialize(count: 1)
        renderThread.deallocate()
        shared.deinitialize(count: 1)
        shared.deallocate()
    }

    // MARK: Life cycle

    /// Locks memory when asked and permitted, starts the render thread (SCHED_FIFO when
    /// asked and permitted) and logs what was granted. The first periods the thread
    /// writes are silence until commands arrive.
    public func start() throws(EngineError) {
        guard thread == nil, !stopped else { throw .alreadyStarted }
        var locked = false
        if configuration.lockMemory {
            // MCL_ONFAULT: every page stays resident once touched, but nothing is faulted
            // in ahead (mapped media would otherwise count in full against the memory
            // budget); the library pre-faults the region about to play.
            do {
                Heap.useOneArena()
                try MemoryLock.lockAll(future: true, onFault: true)
                locked = true
            } catch {
                log("audio: memory not locked (\(error)); pages may be swapped out")
            }
        }
        var priority = configuration.realtimePriority
        let argument = UnsafeMutableRawPointer(renderThread)
        do {
            thread = try startRenderThread(argument, priority: priority)
        } catch where error.code == EPERM && priority != nil {
            log("audio: SCHED_FIFO priority \(priority ?? 0) not permitted (\(error.message)); "
                + "the render thread runs at normal priority")
            priority = nil
            do { thread = try startRenderThread(argument, priority: nil) } catch { throw .threadNotStarted(error) }
        } catch {
            throw .threadNotStarted(error)
        }
        scheduling = Scheduling(fifoPriority: priority, memoryLocked: locked)
        let ms = Double(granted.periodFrames * granted.periodCount) * 1000 / Double(granted.rate)
        let scheduling = configuration.rewind.map {
            "; deep buffer: renders \($0.chunkFrames)-frame chunks, "
                + "wakes with \(granted.availMin ?? 0) frames of room, "
                + "rewinds to \($0.guardFrames) frames past the play head for a command"
        } ?? ""
        log("audio: \(device.name) \(granted.format.alsaName) \(granted.rate) Hz, "
            + "period \(granted.periodFrames) frames × \(granted.periodCount) "
            + "(buffer \(String(format1: ms)) ms)\(scheduling); render thread "
            + (priority.map { "SCHED_FIFO priority \($0)" } ?? "normal priority")
            + (locked ? ", memory locked" : ""))
    }

    /// Starts the render thread on `renderThread` (`argument`), at SCHED_FIFO `priority` if given.
    private func startRenderThread(_ argument: UnsafeMutableRawPointer,
                                   priority: Int32?) throws(SystemError) -> SystemThread {
        try SystemThread(name: "segmance-audio", scheduling: priority.map { .fifo($0) },
                         stackBytes: Self.renderStackBytes) {
            _ = renderThreadEntry(argument)
        }
    }

    /// The render thread's stack: it calls no deeper than the renderer, alsa-lib's plugins and
    /// Rubber Band's `process`. Locked in full with the rest of memory: glibc's default (8 MB)
    /// was a sixteenth of the service's LimitMEMLOCK.
    static let renderStackBytes = 2 << 20

    /// Ends the render thread after the period it is on and waits for it. With `drain`,
    /// what is queued in the device plays out (`snd_pcm_drain`, at most a buffer);
    /// otherwise it is dropped. A device that stops consuming is waited for at most the
    /// buffer's length and one second more, then dropped, and a log line says so: a hung
    /// device cannot hold up the service's stop. Reports and log lines not yet taken stay
    /// takeable.
    public func stop(drain: Bool = true) {
        guard let running = thread, !stopped else { return }
        stopped = true
        takeStretchers(wait: true)
        shared.pointee.stopRequested.store(true, ordering: .releasing)
        wakeRenderThread()
        running.join()
        thread = nil
        do {
            if drain {
                let buffer = Int64(granted.periodFrames * granted.periodCount) * 1_000_000_000 / Int64(granted.rate)
                let limit = buffer + Self.drainMarginNanoseconds
                if try !device.drain(timeoutNanoseconds: limit) {
                    log("audio: \(device.name) did not play out its buffer within \(limit / 1_000_000) ms; "
                        + "dropped what was left")
                }
            } else {
                try device.drop()
            }
        } catch {
            log("audio: \(error)")
        }
    }

    /// How much longer than its buffer a device may take to drain at stop.
    static let drainMarginNanoseconds: Int64 = 1_000_000_000

    /// Ends playback gracefully: lets every command sent so far apply and what it starts
    /// (a pause's ramp-out) reach ALSA, then stops and drains (`stop(drain: true)`). Waits
    /// for the render thread at most `timeoutNanoseconds`, so a stuck device cannot hold
    /// up the service's stop.
    public func finish(timeoutNanoseconds: Int64 = 500_000_000) {
        let deadline = monotonicNanoseconds() + timeoutNanoseconds
        func waitUntil(_ done: () -> Bool) {
            while isRunning, !done(), monotonicNanoseconds() < deadline {
                takeStretchers(wait: false)
                // The render thread wakes every period; a millisecond's nap is a fraction of one.
                sleepMonotonic(nanoseconds: 1_000_000)
            }
        }
        waitUntil { pendingCommands == 0 }
        let target = framesHanded + Int64(configuration.render.rampFrames + granted.periodFrames)
        waitUntil { framesHanded >= target }
        stop(drain: true)
    }

    /// Whether the render thread runs.
    public var isRunning: Bool { thread != nil }

    // MARK: Commands

    /// Hands a command to the render thread; it applies at the next period boundary.
    /// When the command ring is full the command is dropped and a log line says so.
    /// While the stretchers are being made (the first speed other than 100 %), it waits
    /// for them on the control side, in order (see *Speed* above); `send` never waits.
    public func send(_ command: StampedCommand) {
        let queued = QueuedCommand(command: command, frame: QueuedCommand.nextBoundary)
        if holds(queued) { return }
        enqueue(attachingStretchers(queued))
    }

    /// Hands a command to the render thread to apply at exactly `timed.frame` of the
    /// output. One that arrives after its frame applies at once and is logged as late.
    /// False (and nothing queued) when the ring is full. While the stretchers are being
    /// made it waits for them like `send(_:)` (true: it is queued on the control side).
    @discardableResult
    public func send(_ timed: TimedCommand) -> Bool {
        let queued = QueuedCommand(command: timed.command, frame: timed.frame)
        if holds(queued) { return true }
        return push(attachingStretchers(queued))
    }

    /// Whether `queued` waits for the stretchers (`StretcherHandOff`).
    private func holds(_ queued: QueuedCommand) -> Bool {
        takeStretchers(wait: false)
        defer { logLines += handOff.takeLog() }
        return handOff.holds(queued)
    }

    /// Resets the spare stretchers the render side swapped out; when the worker is done (or,
    /// with `wait`, once it is): takes its stretchers, then hands the waiting commands to the
    /// render side, the stretchers with the first speed change.
    private func takeStretchers(wait: Bool) {
        handOff.resetUsedSpares()
        let held = handOff.takeReady(wait: wait)
        logLines += handOff.takeLog()
        for queued in held { enqueue(attachingStretchers(queued)) }
    }

    /// `queued` with the stretch voices to hand over with it, if any (`StretcherHandOff`).
    private func attachingStretchers(_ queued: QueuedCommand) -> QueuedCommand {
        defer { logLines += handOff.takeLog() }
        return handOff.attaching(queued)
    }

    private func enqueue(_ queued: QueuedCommand) {
        if !push(queued) {
            log("audio: command queue full (\(configuration.commandCapacity)); dropped epoch \(queued.command.epoch)")
        }
    }

    /// Queues `queued` for the render thread and wakes it; false when the ring is full. The
    /// stretch voices it carries are the render side's from then on.
    private func push(_ queued: QueuedCommand) -> Bool {
        guard shared.pointee.commands.push(queued) else { return false }
        if !queued.stretchers.isEmpty { handOff.noteHanded() }
        wakeRenderThread()
        return true
    }

    /// Makes the stretch voices now, on the calling thread (waiting for the worker if it is
    /// making them), as the first speed other than 100 % would: for a caller that knows a
    /// speed change is coming and wants it to wait for nothing then (they are still handed
    /// over with that command). Their memory is held from now on.
    public func prepareStretchers() {
        if handOff.isMaking {
            takeStretchers(wait: true)
        } else {
            handOff.prepare(for: "asked")
            logLines += handOff.takeLog()
        }
    }

    /// Stretch voices made so far and taken by the control side (`configuration.render.stretchVoices`
    /// once the speed has left 100 % and the worker is done, or `prepareStretchers()` was
    /// called; 0 before).
    public var stretchVoices: Int { handOff.stretchers?.pool.count ?? 0 }

    /// Spare stretchers kept (`StretchPool.spares`: where a reset calls the heap).
    public var stretchSpares: Int { handOff.stretchers?.spareCount ?? 0 }

    /// Stream starts that found no spare clean and reset a stretcher on the render thread
    /// (`StretchPool.resetsAtStart`). Read after `stop`: the render thread counts them.
    public var stretchResetsAtStart: Int { handOff.stretchers?.pool.resetsAtStart ?? 0 }

    /// Whether the worker is making the stretchers (commands wait for them meanwhile).
    public var isMakingStretchers: Bool { handOff.isMaking }

    /// Runs the render code through every path it has (`RenderWarmUp`), so that after
    /// memory was given back (`ResidentSet.trim`) it is resident again before anything
    /// plays. Once the render side has stretch voices, the speed paths too, on one
    /// stretcher made for the purpose and freed after (the render thread's own are not
    /// touched). Control side.
    public func warmUp() {
        guard handOff.handed else {
            RenderWarmUp.run(configuration)
            return
        }
        var one = configuration
        one.render.stretchVoices = 1
        RenderWarmUp.run(one, stretchers: Renderer.makeStretchers(sampleRate: granted.rate, config: one.render))
    }

    /// With rewinds the render thread sleeps for most of a buffer: a command wakes it.
    private func wakeRenderThread() {
        commandEvents?.signal()
    }

    // MARK: What the render side did

    /// Reports of the render function since the last call, oldest first. Thread events
    /// (xruns, late commands, failure) become log lines (`takeLog()`).
    public func takeReports() -> [AudioReport] {
        wakeEvents.take()
        takeStretchers(wait: false)
        var reports: [AudioReport] = []
        while let event = shared.pointee.events.pop() {
            switch event {
            case .report(let r):
                reports.append(r.report)
            case .applied(let timing):
                if recordsTimings { timings.append(timing) }
            case .xrun(let frame):
                log("audio: underrun at output frame \(frame) (\(xrunCount) so far); recovered")
            case .late(let epoch, let frame, let at):
                log("audio: command of epoch \(epoch) for frame \(frame) arrived late; applied at \(at)")
            case .failed(let call, let code):
                let error = ALSAError(function: call.name, pcm: device.name, result: code)
                log("audio: \(error) — the render thread stopped")
            }
        }
        let refused = shared.pointee.rewindsRefused.load(ordering: .relaxed)
        if refused != reportedRefusals {
            log("audio: \(device.name) refused \(refused - reportedRefusals) rewind(s); those commands "
                + "applied at the end of the buffer, not after the guard")
            reportedRefusals = refused
        }
        let dropped = shared.pointee.droppedEvents.load(ordering: .relaxed)
        if dropped != reportedDrops {
            log("audio: \(dropped - reportedDrops) render events dropped (event ring full)")
            reportedDrops = dropped
        }
        return reports
    }

    /// Part-relative frame and epoch as of the last period the render thread rendered (with
    /// a deep buffer: as of the guard past the play head, when the thread last woke).
    public var position: (frame: Int64, epoch: UInt32) { shared.pointee.position.read() }

    /// What was sounding at the DAC at CLOCK_MONOTONIC `time` (ns; an input edge's kernel
    /// timestamp): the device's clock (its delay, read with the time it was read, right
    /// after each write) gives the output frame there, the render side's play history the
    /// source frame that frame played. Nil for a time before the device's readings kept
    /// (seconds), a frame not handed to the device yet, or one before the history kept.
    /// Lock-free; the render thread publishes both under seqlocks.
    public func heard(at time: Int64) -> HeardFrame? {
        // A frame not handed to the device yet cannot have sounded (a time ahead of now,
        // or on another clock).
        guard let frame = shared.pointee.deviceClock.outputFrame(at: time), frame < framesHanded else { return nil }
        return shared.pointee.history.heard(atOutput: frame)
    }

    /// Wakes the control side (`wakeDescriptor`) once, when the render thread first
    /// publishes a position (part-relative, any epoch) at or past `frame`; nil cancels. Replaces
    /// the watch set before. A control loop that shows something at a position (the next
    /// beat, a cue) sleeps until it is reached instead of looking again and again while the
    /// position it read is a render wake old. Lock-free.
    public func wakeWhenPosition(reaches frame: Int64?) {
        shared.pointee.position.watch.store(frame ?? Int64.max, ordering: .relaxed)
    }

    /// The output frame at the DAC at CLOCK_MONOTONIC `time` (ns), from the device's clock;
    /// nil for a time before its readings kept.
    public func outputFrame(at time: Int64) -> Int64? { shared.pointee.deviceClock.outputFrame(at: time) }

    /// The device's recent readings, oldest first: output frame `frame` was at the DAC at
    /// CLOCK_MONOTONIC `time` (ns), read just after its pointer moved (or, between moves,
    /// when a command woke the thread and the reading was ahead). For measurements.
    public func deviceReadings() -> [(time: Int64, frame: Int64)] { shared.pointee.deviceClock.readings() }

    /// Log lines since the last call: what was granted at start, xruns, late or dropped
    /// commands, failures. Call `takeReports()` first to turn pending events into lines.
    public func takeLog() -> [String] {
        defer { logLines.removeAll() }
        return logLines
    }

    /// Timings recorded since the last call (with `recordsTimings`).
    public func takeTimings() -> [CommandTiming] {
        defer { timings.removeAll() }
        return timings
    }

    /// An eventfd, readable when the render thread has pushed reports or events. Poll it
    /// for `POLLIN`; `takeReports()` resets it.
    public var wakeDescriptor: Int32 { wakeEvents.fileDescriptor }

    /// Rewinds done so far (with `configuration.rewind`).
    public var rewindCount: Int { shared.pointee.rewinds.load(ordering: .relaxed) }

    /// Rewinds the device refused or cut short so far.
    public var refusedRewindCount: Int { shared.pointee.rewindsRefused.load(ordering: .relaxed) }

    /// Underruns recovered so far.
    public var xrunCount: Int { shared.pointee.xruns.load(ordering: .relaxed) }

    /// Output frames handed to ALSA so far.
    public var framesHanded: Int64 { shared.pointee.framesHanded.load(ordering: .acquiring) }

    /// `snd_pcm_delay` after the last write: frames between the newest written and the
    /// one sounding now (the output latency).
    public var deviceDelayFrames: Int { shared.pointee.delayFrames.load(ordering: .relaxed) }

    /// What the probe's `end` returned when the render thread ended; nil before, or
    /// without a probe.
    public var probeResult: Int? {
        let r = shared.pointee.probeResult.load(ordering: .acquiring)
        return r < 0 ? nil : r
    }

    /// Commands waiting for the render thread (and, while the stretchers are being made, for
    /// them on the control side).
    public var pendingCommands: Int { shared.pointee.commands.count + handOff.waitingCount }

    private func log(_ line: String) { logLines.append(line) }
}

extension String {
    /// One decimal, without Foundation.
    init(format1 value: Double) {
        let tenths = Int((value * 10).rounded())
        self = "\(tenths / 10).\(abs(tenths % 10))"
    }
}
