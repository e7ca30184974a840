import ALSA
import Atomics
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// A command waiting for the render thread: at the next period boundary, or at `frame`.
struct QueuedCommand {
    var command: StampedCommand
    /// The output frame to apply at; `QueuedCommand.nextBoundary` for "as soon as possible".
    var frame: Int64
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
    /// The second of the part (position / rate) of the last position report that woke the
    /// control side: positions wake it only when the whole second changes (what the LCD shows).
    var lastWakeSecond = Int64.min
    /// With rewinds: the PCM's poll descriptors, then `commandFD`'s.
    let pollFDs: UnsafeMutablePointer<pollfd>
    let pcmPollCount: Int
    /// eventfd the control side bumps after queueing a command (with rewinds; -1 without).
    let commandFD: Int32
    let floats: UnsafeMutablePointer<Float>
    let bytes: UnsafeMutableRawPointer
    /// eventfd the thread bumps when it has pushed events.
    let wakeFD: Int32
    let probe: RenderThreadProbe?

    /// Set by the control side to end the loop.
    let stopRequested: UnsafeAtomic<Bool>
    /// Seqlock over (position, epoch): odd while the thread writes them.
    let positionSequence: UnsafeAtomic<Int>
    let position: UnsafeAtomic<Int64>
    let epoch: UnsafeAtomic<UInt32>
    /// Output frames handed to ALSA.
    let framesHanded: UnsafeAtomic<Int64>
    let xruns: UnsafeAtomic<Int>
    let delayFrames: UnsafeAtomic<Int>
    /// Events that did not fit in the ring.
    let droppedEvents: UnsafeAtomic<Int>
    /// Test hook: the thread sleeps this long once, before its next write.
    let stallNanoseconds: UnsafeAtomic<Int>
    /// What `probe.end` returned; -1 before the thread ends.
    let probeResult: UnsafeAtomic<Int>
    /// Rewinds done, and rewinds the device refused or cut short (the commands then
    /// applied where the buffer ended).
    let rewinds: UnsafeAtomic<Int>
    let rewindsRefused: UnsafeAtomic<Int>

    /// `rewind`: the guard and chunk of deep-buffer scheduling; `commandFD` and
    /// `pcmPollFDs` (the PCM's poll descriptors) are used with it only.
    init(renderer: consuming Renderer, pcm: OpaquePointer, configuration: PCMConfiguration,
         rewind: EngineConfiguration.Rewind?, pcmPollFDs: [pollfd], commandFD: Int32,
         commandCapacity: Int, eventCapacity: Int, wakeFD: Int32, probe: RenderThreadProbe?) {
        self.pcm = pcm
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
        self.wakeFD = wakeFD
        self.probe = probe
        stopRequested = .create(false)
        positionSequence = .create(0)
        position = .create(0)
        epoch = .create(0)
        framesHanded = .create(0)
        xruns = .create(0)
        delayFrames = .create(0)
        droppedEvents = .create(0)
        stallNanoseconds = .create(0)
        probeResult = .create(-1)
        rewinds = .create(0)
        rewindsRefused = .create(0)
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
        framesHanded.destroy()
        xruns.destroy()
        delayFrames.destroy()
        droppedEvents.destroy()
        stallNanoseconds.destroy()
        probeResult.destroy()
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

    /// Render thread: publishes (position, epoch).
    func publishPosition(_ frame: Int64, _ e: UInt32) {
        let s = positionSequence.load(ordering: .relaxed)
        positionSequence.store(s &+ 1, ordering: .relaxed)
        atomicMemoryFence(ordering: .releasing)
        position.store(frame, ordering: .relaxed)
        epoch.store(e, ordering: .relaxed)
        positionSequence.store(s &+ 2, ordering: .releasing)
    }
}
