import ALSA
import LinuxSystem
import SegmanceAudio
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's own state, and its loops as methods (`run`, `RenderLoop.swift`,
/// `RewindingRenderLoop.swift`). The engine allocates it once and frees it after joining
/// the thread; only the thread touches it while it runs. What the control side sees is in
/// `shared`; the device is reached through its wrapper's real-time calls (`RealtimePCM`).
/// Generic over the probe a test or benchmark runs on the thread; the product's does nothing.
struct RenderContext<Probe: RenderProbe>: ~Copyable {
    let shared: UnsafePointer<RenderShared>
    let pcm: RealtimePCM
    let probe: Probe
    var renderer: Renderer
    /// Frames rendered and written at a time: the ALSA period, or with rewinds the chunk.
    let periodFrames: Int
    let bytesPerFrame: Int
    /// Deep-buffer scheduling (`EngineConfiguration.Rewind`): the guard in frames, 0 for
    /// period-by-period writes.
    let rewindGuardFrames: Int
    /// The device buffer, in frames.
    let bufferFrames: Int
    /// The device's period in frames: how far behind its delay may read between two moves
    /// of a pointer that moves a period at a time (alsa-lib's jack plugin).
    let devicePeriodFrames: Int64
    let sampleRate: Int64
    /// Where each period or refill is rendered, converted and written from.
    let staging: RenderStaging
    /// With rewinds: the renderer's state at each of the last `snapshotCount` chunk
    /// boundaries, slot `(boundary / periodFrames) % snapshotCount`.
    let snapshots: UnsafeMutablePointer<RenderSnapshot>
    let snapshotCount: Int
    /// With rewinds: reports of frames that may still be rendered again, oldest first,
    /// held until the device has played up to the guard before them.
    let heldReports: UnsafeMutablePointer<RenderReport>
    let heldCapacity: Int
    var heldCount = 0
    /// With rewinds: the PCM's poll descriptors, then the command eventfd's.
    let pollFDs: UnsafeMutablePointer<pollfd>
    let pcmPollCount: Int

    /// Renderer history entries below this index are published as they are (a rewind
    /// lowers it to the count it restored).
    var spanSynced = 0
    /// The stretch pool's spares taken when the control side was last woken for them.
    var sparesSeen = 0
    /// The device clock's reading last published.
    var anchorT: Int64 = 0
    var anchorF: Int64 = 0
    /// Whether the device's pointer has only moved by whole device periods so far, as a
    /// device's that takes each period as it starts to play (`notePointer`).
    var pointerMovesByPeriods = true
    var lastPointer = Int64.min
    /// Whether commands applied since the last hand-over, and their timing so far.
    var pending = false
    var timing = CommandTiming(firstEpoch: 0, lastEpoch: 0, frame: 0, handedAt: 0, handedThrough: 0,
                               delayFrames: 0)
    /// With rewinds: a rewind never goes back to or before the frame of the last command
    /// applied, nor before frames that were settled (played, or inside the guard then).
    var lastApplied = Int64.min
    var settledFloor = Int64.min

    /// `rewind`: the guard and chunk of deep-buffer scheduling; `pcmPollFDs` (the PCM's poll
    /// descriptors) are used with it only.
    init(shared: UnsafePointer<RenderShared>, renderer: consuming Renderer, pcm: RealtimePCM,
         configuration: PCMConfiguration, rewind: EngineConfiguration.Rewind?, pcmPollFDs: [pollfd],
         probe: Probe) {
        self.shared = shared
        self.pcm = pcm
        self.probe = probe
        sampleRate = Int64(renderer.sampleRate)
        let unit = rewind?.chunkFrames ?? configuration.periodFrames
        periodFrames = unit
        bytesPerFrame = configuration.bytesPerFrame
        rewindGuardFrames = rewind?.guardFrames ?? 0
        bufferFrames = configuration.requestedBufferFrames
        devicePeriodFrames = Int64(max(1, configuration.periodFrames))
        snapshotCount = rewind == nil ? 1 : bufferFrames / unit + 2
        snapshots = .allocate(capacity: snapshotCount)
        snapshots.initialize(repeating: renderer.snapshot(), count: snapshotCount)
        heldCapacity = rewind == nil ? 1 : 1_024
        heldReports = .allocate(capacity: heldCapacity)
        pcmPollCount = pcmPollFDs.count
        pollFDs = .allocate(capacity: pcmPollFDs.count + 1)
        pollFDs.initialize(from: pcmPollFDs, count: pcmPollFDs.count)
        (pollFDs + pcmPollFDs.count).initialize(to: pollfd(fd: shared.pointee.commandFD, events: Int16(POLLIN),
                                                           revents: 0))
        // With rewinds a whole buffer's chunks are rendered, converted and written at once.
        staging = RenderStaging(frames: rewind == nil ? unit : max(unit, bufferFrames / unit * unit),
                                configuration: configuration)
        self.renderer = renderer
    }

    deinit {
        staging.deallocate()
        snapshots.deinitialize(count: snapshotCount)
        snapshots.deallocate()
        heldReports.deallocate()
        pollFDs.deallocate()
    }
}

// MARK: What the control side sees

extension RenderContext {
    /// Pushes an event for the control side, or counts it as dropped. True when pushed.
    @discardableResult
    func push(_ event: RenderEvent) -> Bool {
        if shared.pointee.events.push(event) { return true }
        shared.pointee.droppedEvents.wrappingIncrement(ordering: .relaxed)
        return false
    }

    /// Wakes the control side (its eventfd).
    func wake() {
        EventDescriptor.signal(shared.pointee.wakeFD)
    }

    /// Whether stream starts took spare stretchers since the last call: the control side is
    /// woken to reset them (`RealtimeAudioEngine.takeReports`) before the next starts.
    @inline(__always)
    mutating func sparesWereTaken() -> Bool {
        let taken = renderer.sparesTakenInPlace()
        if taken == sparesSeen { return false }
        sparesSeen = taken
        return true
    }

    /// Whether a report just pushed is worth waking the control side for: anything but a
    /// position. Positions go with the next wake: the control side times what its screen
    /// shows from the device's clock (`RealtimeAudioEngine.heard(at:)`), or asks for a
    /// wake at a position (`wakeWhenPosition`), so playing alone wakes it for nothing.
    @inline(__always)
    static func wakes(_ report: AudioReport) -> Bool {
        if case .position = report.kind { return false }
        return true
    }

    /// Publishes (position, epoch). True when it reached the control side's watch: the
    /// caller wakes the control side.
    @discardableResult
    func publishPosition(_ frame: Int64, _ epoch: UInt32) -> Bool {
        shared.pointee.position.publish(frame, epoch)
    }

    /// Publishes the renderer's history entries written since the last call (and those a
    /// rewind made it write again).
    mutating func publishHistory() {
        spanSynced = shared.pointee.history.publish(from: &renderer, synced: spanSynced)
    }

    /// The device's pointer read (the frame it has played through, as `written - delay`).
    /// One move by less than a device period, and it is not a device that takes a period
    /// at a time.
    mutating func notePointer(_ pointer: Int64) {
        if lastPointer != .min && (pointer &- lastPointer) % devicePeriodFrames != 0 { pointerMovesByPeriods = false }
        lastPointer = pointer
    }

    /// Right after `delay` said `delay` with `written` frames handed over: output frame
    /// `written - delay` is at the DAC now. `fresh`: the thread woke because the device's
    /// pointer moved (room for a period, or for the deep buffer's refill), so the reading is
    /// as new as the pointer. A pointer that moves a period at a time (alsa-lib's jack
    /// plugin) reads up to a period behind between its moves, so a reading that is not
    /// fresh (a wake for a command) only replaces the anchor when it is ahead of the
    /// anchor's projection, a period or more behind it (an xrun), or the anchor is a second
    /// old. One `clock_gettime` (vDSO) added.
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
        shared.pointee.deviceClock.append(time: now, frame: frame)
    }
}
