import Atomics
import SegmanceAudio

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

/// What the control side and the render thread share, in memory the engine allocates once
/// and frees after joining the thread: the command and event rings, the published position,
/// play history and device clock (each under a `Seqlock`), flags and counters. Every field
/// is a `let` atomic, ring or descriptor, so both sides use it at once without exclusive
/// access; what only the render thread touches is its `RenderContext`.
struct RenderShared: ~Copyable {
    let commands: SPSCRing<QueuedCommand>
    let events: SPSCRing<RenderEvent>
    /// eventfd the render thread bumps when it has pushed events.
    let wakeFD: Int32
    /// eventfd the control side bumps after queueing a command (with rewinds; -1 without).
    let commandFD: Int32
    /// Set by the control side to end the loop.
    let stopRequested: UnsafeAtomic<Bool> = .create(false)
    let position = PublishedPosition()
    let history = PublishedHistory()
    let deviceClock: PublishedDeviceClock
    /// Output frames handed to ALSA.
    let framesHanded: UnsafeAtomic<Int64> = .create(0)
    let xruns: UnsafeAtomic<Int> = .create(0)
    let delayFrames: UnsafeAtomic<Int> = .create(0)
    /// Events that did not fit in the ring.
    let droppedEvents: UnsafeAtomic<Int> = .create(0)
    /// Rewinds done, and rewinds the device refused or cut short (the commands then
    /// applied where the buffer ended).
    let rewinds: UnsafeAtomic<Int> = .create(0)
    let rewindsRefused: UnsafeAtomic<Int> = .create(0)
    /// What the probe said as the thread ended (`RenderProbe.threadEnding`); -1 before.
    let probeResult: UnsafeAtomic<Int> = .create(-1)

    init(sampleRate: Int, commandCapacity: Int, eventCapacity: Int, wakeFD: Int32, commandFD: Int32) {
        commands = SPSCRing(capacity: commandCapacity)
        events = SPSCRing(capacity: eventCapacity)
        self.wakeFD = wakeFD
        self.commandFD = commandFD
        deviceClock = PublishedDeviceClock(sampleRate: Int64(sampleRate))
    }

    deinit {
        commands.destroy()
        events.destroy()
        stopRequested.destroy()
        framesHanded.destroy()
        xruns.destroy()
        delayFrames.destroy()
        droppedEvents.destroy()
        rewinds.destroy()
        rewindsRefused.destroy()
        probeResult.destroy()
    }
}
