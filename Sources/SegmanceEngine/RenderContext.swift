import ALSA
import Atomics
import SegmanceAudio

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
    let periodFrames: Int
    let bytesPerFrame: Int
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

    init(renderer: consuming Renderer, pcm: OpaquePointer, configuration: PCMConfiguration,
         commandCapacity: Int, eventCapacity: Int, wakeFD: Int32, probe: RenderThreadProbe?) {
        self.renderer = renderer
        commands = SPSCRing(capacity: commandCapacity)
        events = SPSCRing(capacity: eventCapacity)
        self.pcm = pcm
        format = configuration.format
        periodFrames = configuration.periodFrames
        bytesPerFrame = configuration.bytesPerFrame
        floats = .allocate(capacity: configuration.periodFrames * 2)
        floats.initialize(repeating: 0, count: configuration.periodFrames * 2)
        bytes = .allocate(byteCount: configuration.periodFrames * configuration.bytesPerFrame, alignment: 16)
        bytes.initializeMemory(as: UInt8.self, repeating: 0, count: configuration.periodFrames * configuration.bytesPerFrame)
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
    }

    deinit {
        commands.destroy()
        events.destroy()
        floats.deallocate()
        bytes.deallocate()
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
