import ALSA
import Atomics
import LinuxSystem
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// A command waiting for the render thread: at the next period boundary, or at `frame`.
struct QueuedCommand {
    var command: StampedCommand
    /// The output frame to apply at; `QueuedCommand.nextBoundary` for "as soon as possible".
    var frame: Int64
    /// Stretch voices the render side attaches just before applying `command` (the first
    /// speed other than 100 % brings them); `.empty` for none.
    var stretchers: StretchPool = .empty
    static let nextBoundary = Int64.min
}

/// Test hooks around the render thread's body: called on that thread, first thing after
/// its start-up and last thing before it exits (`@convention(c)`: no context, nothing to
/// retain). The benchmark and the allocation test pass a malloc counter's begin and end.
public struct RenderThreadProbe: Sendable {
    public var begin: @convention(c) () -> Void
    public var end: @convention(c) () -> Int
    public init(begin: @convention(c) () -> Void, end: @convention(c) () -> Int) {
        self.begin = begin
        self.end = end
    }
}

/// Everything the render thread touches, in memory the engine allocates once and frees
/// after joining the thread. It lives behind an `UnsafeMutablePointer`, so the thread
/// reaches it with no reference counting and no exclusivity checks; the fields the
/// control side shares are atomics or rings, every other field is the thread's alone
/// while it runs.
struct RenderContext: ~Copyable {
    var renderer: Renderer
    let commands: SPSCRing<QueuedCommand>
    let events: SPSCRing<RenderEvent>
    /// The `snd_pcm_t *`; the `PCMDevice` that owns it outlives the thread.
    let pcm: OpaquePointer
    let format: PCMSampleFormat
    /// Frames rendered and written at a time: the ALSA period, or with rewinds the chunk.
    let periodFrames: Int
    let bytesPerFrame: Int
    /// Deep-buffer scheduling (`EngineConfiguration.Rewind`): the guard in frames, 0 for
    /// period-by-period writes.
    let rewindGuardFrames: Int
    /// The device buffer, in frames.
    let bufferFrames: Int
    /// Frames `floats` and `bytes` hold: one period, or with rewinds the buffer's chunks.
    let stagingFrames: Int
    /// With rewinds: the renderer's state at each of the last `snapshotCount` chunk
    /// boundaries, slot `(boundary / periodFrames) % snapshotCount`.
    let snapshots: UnsafeMutablePointer<RenderSnapshot>
    let snapshotCount: Int
    /// With rewinds: reports of frames that may still be rendered again, oldest first,
    /// held until the device has played up to the guard before them.
    let heldReports: UnsafeMutablePointer<RenderReport>
    let heldCapacity: Int
    var heldCount = 0
    /// With rewinds: the PCM's poll descriptors, then `commandFD`'s.
    let pollFDs: UnsafeMutablePointer<pollfd>
    let pcmPollCount: Int
    /// eventfd the control side bumps after queueing a command (with rewinds; -1 without).
    let commandFD: Int32
    let floats: UnsafeMutablePointer<Float>
    let bytes: UnsafeMutableRawPointer
    /// What is written to the device: `bytes` after the conversion, or `floats` themselves
    /// when the device takes the renderer's own samples (FLOAT_LE on a little-endian
    /// machine), which saves a copy of every frame.
    let output: UnsafeRawPointer
    let converts: Bool
    /// eventfd the thread bumps when it has pushed events.
    let wakeFD: Int32
    let probe: RenderThreadProbe?

    /// Set by the control side to end the loop.
    let stopRequested: UnsafeAtomic<Bool>
    /// Seqlock over (position, epoch): odd while the thread writes them.
    let positionSequence: UnsafeAtomic<Int>
    let position: UnsafeAtomic<Int64>
    let epoch: UnsafeAtomic<UInt32>
    /// The control side's watch: the first position published at or past this frame (any
    /// epoch) wakes it once and resets the watch to `Int64.max` (none). The control side
    /// sleeps until what its screen shows next is due, rather than looking again and again.
    let wakePosition: UnsafeAtomic<Int64>
    /// Output frames handed to ALSA.
    let framesHanded: UnsafeAtomic<Int64>
    let xruns: UnsafeAtomic<Int>
    let delayFrames: UnsafeAtomic<Int>
    /// Events that did not fit in the ring.
    let droppedEvents: UnsafeAtomic<Int>
    /// Test hook: the thread sleeps this long once, before its next write.
    let stallNanoseconds: UnsafeAtomic<Int>
    /// Test hook (deep-buffer scheduling): 1 asks the thread to hold at its next refill's
    /// chunk until a command is queued; it is 2 while the thread holds.
    let holdForCommand: UnsafeAtomic<Int>
    /// What `probe.end` returned; -1 before the thread ends.
    let probeResult: UnsafeAtomic<Int>
    /// Rewinds done, and rewinds the device refused or cut short (the commands then
    /// applied where the buffer ended).
    let rewinds: UnsafeAtomic<Int>
    let rewindsRefused: UnsafeAtomic<Int>

    /// The renderer's play history, published for the control side: entry `i` in the four
    /// words from `(i % Renderer.historyCapacity) · 4` (`PlayedSpan`'s output frame, source
    /// frame, rate bits, epoch << 32 | part), `spanCount` entries in all, under the seqlock
    /// `spanSequence` (odd while the thread writes).
    let spanWords: UnsafeMutablePointer<UnsafeAtomic<Int64>.Storage>
    let spanSequence: UnsafeAtomic<Int>
    let spanCount: UnsafeAtomic<Int>
    /// The thread's own: renderer entries below this index are published as they are (a
    /// rewind lowers it to the count it restored).
    var spanSynced = 0
    /// The device's clock: its readings, each "output frame f was at the DAC at
    /// CLOCK_MONOTONIC t (ns)", the newest `anchorCapacity` in a ring of word pairs (t, f),
    /// `anchorCount` in all, under the seqlock `anchorSequence`. An event is placed with
    /// the reading in force at its time, so one read late does not move across a jump
    /// of the device's clock (an xrun, a stalled server).
    let anchorWords: UnsafeMutablePointer<UnsafeAtomic<Int64>.Storage>
    /// Period by period, 2.7 s of readings at 128 frames; a press held half a second is
    /// still placed by the reading of its down edge.
    static let anchorCapacity = 1_024
    let anchorSequence: UnsafeAtomic<Int>
    let anchorCount: UnsafeAtomic<Int>
    /// The thread's copy of the anchor last published.
    var anchorT: Int64 = 0
    var anchorF: Int64 = 0
    /// The device's period in frames: how far behind its delay may read between two moves
    /// of a pointer that moves a period at a time (alsa-lib's jack plugin).
    let devicePeriodFrames: Int64
    /// Render thread: whether the device's pointer has only moved by whole device periods so
    /// far, as a device's that takes each period as it starts to play (`notePointer`).
    var pointerMovesByPeriods = true
    var lastPointer = Int64.min
    /// The renderer's rate, for the control side (which never touches the renderer).
    let sampleRate: Int64

    /// `rewind`: the guard and chunk of deep-buffer scheduling; `commandFD` and
    /// `pcmPollFDs` (the PCM's poll descriptors) are used with it only.
    init(renderer: consuming Renderer, pcm: OpaquePointer, configuration: PCMConfiguration,
         rewind: EngineConfiguration.Rewind?, pcmPollFDs: [pollfd], commandFD: Int32,
         commandCapacity: Int, eventCapacity: Int, wakeFD: Int32, probe: RenderThreadProbe?) {
        self.pcm = pcm
        sampleRate = Int64(renderer.sampleRate)
        format = configuration.format
        let unit = rewind?.chunkFrames ?? configuration.periodFrames
        periodFrames = unit
        bytesPerFrame = configuration.bytesPerFrame
        rewindGuardFrames = rewind?.guardFrames ?? 0
        bufferFrames = configuration.requestedBufferFrames
        snapshotCount = rewind == nil ? 1 : bufferFrames / unit + 2
        snapshots = .allocate(capacity: snapshotCount)
        snapshots.initialize(repeating: renderer.snapshot(), count: snapshotCount)
        heldCapacity = rewind == nil ? 1 : 1_024
        heldReports = .allocate(capacity: heldCapacity)
        pcmPollCount = pcmPollFDs.count
        pollFDs = .allocate(capacity: pcmPollFDs.count + 1)
        pollFDs.initialize(from: pcmPollFDs, count: pcmPollFDs.count)
        (pollFDs + pcmPollFDs.count).initialize(to: pollfd(fd: commandFD, events: Int16(POLLIN), revents: 0))
        self.commandFD = commandFD
        self.renderer = renderer
        commands = SPSCRing(capacity: commandCapacity)
        events = SPSCRing(capacity: eventCapacity)
        // With rewinds a whole buffer's chunks are rendered, converted and written at once.
        stagingFrames = rewind == nil ? unit : max(unit, bufferFrames / unit * unit)
        floats = .allocate(capacity: stagingFrames * 2)
        floats.initialize(repeating: 0, count: stagingFrames * 2)
        bytes = .allocate(byteCount: stagingFrames * configuration.bytesPerFrame, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: stagingFrames * configuration.bytesPerFrame)
        converts = configuration.format != .floatLE || 1.littleEndian != 1
        output = converts ? UnsafeRawPointer(bytes) : UnsafeRawPointer(floats)
        self.wakeFD = wakeFD
        self.probe = probe
        stopRequested = .create(false)
        positionSequence = .create(0)
        position = .create(0)
        epoch = .create(0)
        wakePosition = .create(Int64.max)
        framesHanded = .create(0)
        xruns = .create(0)
        delayFrames = .create(0)
        droppedEvents = .create(0)
        stallNanoseconds = .create(0)
        holdForCommand = .create(0)
        probeResult = .create(-1)
        rewinds = .create(0)
        rewindsRefused = .create(0)
        let words = Renderer.historyCapacity * 4
        spanWords = .allocate(capacity: words)
        spanWords.initialize(repeating: UnsafeAtomic<Int64>.Storage(0), count: words)
        spanSequence = .create(0)
        spanCount = .create(0)
        anchorWords = .allocate(capacity: Self.anchorCapacity * 2)
        anchorWords.initialize(repeating: UnsafeAtomic<Int64>.Storage(0), count: Self.anchorCapacity * 2)
        anchorSequence = .create(0)
        anchorCount = .create(0)
        devicePeriodFrames = Int64(max(1, configuration.periodFrames))
    }

    deinit {
        commands.destroy()
        events.destroy()
        floats.deallocate()
        bytes.deallocate()
        snapshots.deinitialize(count: snapshotCount)
        snapshots.deallocate()
        heldReports.deallocate()
        pollFDs.deallocate()
        rewinds.destroy()
        rewindsRefused.destroy()
        stopRequested.destroy()
        positionSequence.destroy()
        position.destroy()
        epoch.destroy()
        wakePosition.destroy()
        framesHanded.destroy()
        xruns.destroy()
        delayFrames.destroy()
        droppedEvents.destroy()
        stallNanoseconds.destroy()
        holdForCommand.destroy()
        probeResult.destroy()
        spanWords.deinitialize(count: Renderer.historyCapacity * 4)
        spanWords.deallocate()
        spanSequence.destroy()
        spanCount.destroy()
        anchorWords.deinitialize(count: Self.anchorCapacity * 2)
        anchorWords.deallocate()
        anchorSequence.destroy()
        anchorCount.destroy()
    }

    /// Control side: a consistent (position, epoch) pair.
    func readPosition() -> (frame: Int64, epoch: UInt32) {
        while true {
            let s1 = positionSequence.load(ordering: .acquiring)
            if s1 & 1 == 0 {
                let p = position.load(ordering: .relaxed)
                let e = epoch.load(ordering: .relaxed)
                atomicMemoryFence(ordering: .acquiring)
                if positionSequence.load(ordering: .relaxed) == s1 { return (p, e) }
            }
        }
    }

    /// Render thread: publishes (position, epoch). True when it reached the control side's
    /// watch (`wakePosition`, then reset): the caller wakes the control side.
    @discardableResult
    func publishPosition(_ frame: Int64, _ e: UInt32) -> Bool {
        let s = positionSequence.load(ordering: .relaxed)
        positionSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        position.store(frame, ordering: .relaxed)
        epoch.store(e, ordering: .relaxed)
        positionSequence.store(s &+ 2, ordering: .releasing)
        let watched = wakePosition.load(ordering: .relaxed)
        guard frame >= watched else { return false }
        return wakePosition.compareExchange(expected: watched, desired: Int64.max, ordering: .relaxed).exchanged
    }
}

// MARK: What was heard when

extension RenderContext {
    @inline(__always)
    func spanWord(_ index: Int) -> UnsafeAtomic<Int64> { UnsafeAtomic(at: spanWords + index) }

    /// Render thread: publishes the renderer's history entries written since the last call
    /// (and those a rewind made it write again). No allocation, lock or system call.
    mutating func publishHistory() {
        let count = renderer.historyCountInPlace()
        let synced = min(spanSynced, count)
        guard synced != count || spanCount.load(ordering: .relaxed) != count else { return }
        let capacity = Renderer.historyCapacity
        let s = spanSequence.load(ordering: .relaxed)
        spanSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        var i = max(synced, count &- capacity)
        while i < count {
            let span = renderer.playedSpanInPlace(at: i)
            let w = (i % capacity) &* 4
            spanWord(w).store(span.outputFrame, ordering: .relaxed)
            spanWord(w &+ 1).store(span.sourceFrame, ordering: .relaxed)
            spanWord(w &+ 2).store(Int64(bitPattern: span.rate.bitPattern), ordering: .relaxed)
            spanWord(w &+ 3).store(Int64(span.epoch) << 32 | Int64(span.part), ordering: .relaxed)
            i &+= 1
        }
        spanCount.store(count, ordering: .relaxed)
        spanSequence.store(s &+ 2, ordering: .releasing)
        spanSynced = count
    }

    /// Control side: what output frame `frame` played, from the published history (only
    /// frames the device has played are final: with rewinds, later ones may change).
    func heard(atOutput frame: Int64) -> HeardFrame? {
        let capacity = Renderer.historyCapacity
        while true {
            let s1 = spanSequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let count = spanCount.load(ordering: .relaxed)
            let found = PlayedSpan.heard(atOutput: frame, count: count, capacity: capacity) { i in
                let w = (i % capacity) * 4
                let tags = spanWord(w + 3).load(ordering: .relaxed)
                return PlayedSpan(outputFrame: spanWord(w).load(ordering: .relaxed),
                                  sourceFrame: spanWord(w + 1).load(ordering: .relaxed),
                                  rate: Double(bitPattern: UInt64(bitPattern: spanWord(w + 2).load(ordering: .relaxed))),
                                  epoch: UInt32(truncatingIfNeeded: tags >> 32),
                                  part: UInt32(truncatingIfNeeded: tags))
            }
            atomicMemoryFence(ordering: .acquiring)
            if spanSequence.load(ordering: .relaxed) == s1 { return found }
        }
    }

    /// Render thread: the device's pointer read (the frame it has played through, as
    /// `written - delay`). One move by less than a device period, and it is not a device that
    /// takes a period at a time.
    mutating func notePointer(_ pointer: Int64) {
        if lastPointer != .min && (pointer &- lastPointer) % devicePeriodFrames != 0 { pointerMovesByPeriods = false }
        lastPointer = pointer
    }

    /// Render thread, right after `snd_pcm_delay` said `delay` with `written` frames handed
    /// over: output frame `written - delay` is at the DAC now. `fresh`: the thread woke
    /// because the device's pointer moved (room for a period, or for the deep buffer's
    /// refill), so the reading is as new as the pointer. A pointer that moves a period at a
    /// time (alsa-lib's jack plugin) reads up to a period behind between its moves, so a
    /// reading that is not fresh (a wake for a command) only replaces the anchor when it
    /// is ahead of the anchor's projection, a period or more behind it (an xrun), or the
    /// anchor is a second old. One `clock_gettime` (vDSO) added.
    mutating func noteDeviceClock(written: Int64, delay: Int, fresh: Bool) {
        let now = monotonicNanoseconds()
        let frame = written &- Int64(delay)
        if !fresh && anchorT != 0 && now &- anchorT < 1_000_000_000 {
            let projected = anchorF &+ (now &- anchorT) &* sampleRate / 1_000_000_000
            let ahead = projected &- frame
            if ahead >= 0 && ahead < devicePeriodFrames { return }
        }
        anchorT = now
        anchorF = frame
        let n = anchorCount.load(ordering: .relaxed)
        let w = (n % Self.anchorCapacity) &* 2
        let s = anchorSequence.load(ordering: .relaxed)
        anchorSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        anchorWord(w).store(now, ordering: .relaxed)
        anchorWord(w &+ 1).store(frame, ordering: .relaxed)
        anchorCount.store(n &+ 1, ordering: .relaxed)
        anchorSequence.store(s &+ 2, ordering: .releasing)
    }

    @inline(__always)
    func anchorWord(_ index: Int) -> UnsafeAtomic<Int64> { UnsafeAtomic(at: anchorWords + index) }

    /// Control side: the device's readings kept, oldest first.
    func deviceReadings() -> [(time: Int64, frame: Int64)] {
        while true {
            let s1 = anchorSequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let n = anchorCount.load(ordering: .relaxed)
            var all: [(time: Int64, frame: Int64)] = []
            for i in max(0, n - Self.anchorCapacity)..<n {
                let w = (i % Self.anchorCapacity) * 2
                all.append((anchorWord(w).load(ordering: .relaxed), anchorWord(w + 1).load(ordering: .relaxed)))
            }
            atomicMemoryFence(ordering: .acquiring)
            if anchorSequence.load(ordering: .relaxed) == s1 { return all }
        }
    }

    /// Control side: the output frame at the DAC at CLOCK_MONOTONIC `time` (ns): projected
    /// at the rate from the newest reading of the device at or before `time`, and no further than the next reading says the
    /// device had got by then — a device that stalled in between (a late cycle, a starved
    /// server) played less than the rate says. Nil for a time before the readings kept.
    func outputFrame(at time: Int64) -> Int64? {
        while true {
            let s1 = anchorSequence.load(ordering: .acquiring)
            if s1 & 1 != 0 { continue }
            let n = anchorCount.load(ordering: .relaxed)
            var t: Int64 = 0
            var f: Int64 = 0
            // The frame of the reading after the one used, if there is one.
            var later: Int64?
            var i = n - 1
            while i >= max(0, n - Self.anchorCapacity) {
                let w = (i % Self.anchorCapacity) * 2
                t = anchorWord(w).load(ordering: .relaxed)
                f = anchorWord(w + 1).load(ordering: .relaxed)
                if t <= time { break }
                later = f
                i -= 1
            }
            atomicMemoryFence(ordering: .acquiring)
            guard anchorSequence.load(ordering: .relaxed) == s1 else { continue }
            // Before every reading kept (or on another clock: an evdev device left on
            // CLOCK_REALTIME): not placed.
            guard n > 0, t <= time else { return nil }
            let elapsed = (time - t) * sampleRate
            // Rounded down, also before the reading.
            let frames = elapsed >= 0 ? elapsed / 1_000_000_000 : -((-elapsed + 999_999_999) / 1_000_000_000)
            let projected = f + frames
            if let later, later < projected { return max(f, later) }
            return projected
        }
    }
}
