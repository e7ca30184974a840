import ALSA
import LinuxSystem
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's body with deep-buffer scheduling (`EngineConfiguration.Rewind`).
///
/// The whole device buffer is kept full, chunk by chunk, and the renderer's state is kept
/// at every chunk boundary (`snapshots`). The thread sleeps in one `poll` on the PCM and the
/// command eventfd until three quarters of the buffer have played, a command arrives, or a
/// held report is due. With a command waiting it rewinds the device to the first chunk
/// boundary at least the guard past the frame playing now (or to the boundary before a
/// timed command's frame, if that is later), restores the snapshot of that boundary and
/// renders on from there: the command sounds after the guard, not after the buffer, and
/// the output is what the renderer makes of the commands applied at those frames, as with
/// period-by-period writes.
///
/// While audio plays at a speed other than 100 % (or the command sets one), the guard grows by
/// `Renderer.stretchGuardFrames` (16 ms): starting a stretched stream takes longer than 128
/// frames leave before the device needs the new chunk.
///
/// Reports of frames that may still be rendered again are held back until the device has
/// played up to the guard before them, so the control side hears of a tick, a loop or a
/// part's end once and only once; the position published is the one at that point too.
///
/// The same rules as `runPeriods`: nothing here allocates, locks, logs, touches the disk
/// or retains an object. One device call more than the refill needs: the delay as it
/// wakes for room (a few times a second), for the device's clock (`heard(at:)`).
extension RenderContext {
    /// The longest sleep with nothing due: a stop and a command bump the command eventfd,
    /// and the device's room wakes the thread, so this only bounds a device that stopped
    /// signalling. Longer than a deep buffer's refill interval, so it adds no wakes.
    static var pollLimitMilliseconds: Int { 1_000 }

    mutating func runRewinding() {
        var timeout = 0
        while !shared.pointee.stopRequested.load(ordering: .relaxed) {
            var room = false
            var timedOut = false
            guard wait(milliseconds: timeout, room: &room, timedOut: &timedOut) else { break }
            if shared.pointee.stopRequested.load(ordering: .relaxed) { break }
            if room, let delay = pcm.delay() {
                // The device's clock, read the moment its pointer woke the thread: after the
                // refill it would be stale by the refill's time (a pointer that moves a
                // period at a time does not move during it).
                noteDeviceClock(written: renderer.clockInPlace(), delay: delay, fresh: true)
            }
            // Fill the buffer, unless this wake only tells the control side of a moment it
            // shows (a tick, a wrap, a watched position): then the buffer still holds more
            // than the device's wake threshold, and it is left to the next wake for room
            // rather than topped up a little (each refill costs a round of device calls, and
            // a deep buffer is there to be refilled a few times a second).
            let onlyDue = timedOut && !room && timeout >= 0 && timeout < Self.pollLimitMilliseconds
                && shared.pointee.commands.peek() == nil && pcm.state == .running
            guard let next = pass(onlyDue: onlyDue) else { break }
            timeout = next
        }
    }

    /// One wake's work: rewind for the commands waiting, refill, settle. Returns how long to
    /// sleep next (`millisecondsUntilNextWake`), or nil when the device failed for good.
    private mutating func pass(onlyDue: Bool) -> Int? {
        var pushed = false
        // The commands this pass may apply: those waiting now, which the rewind below is
        // for. One that comes while the buffer is refilled is not applied in the refill,
        // up to a whole buffer past the play head: the refill stops, and the next pass
        // rewinds for it (at 75 % speed a refill takes long enough for commands to land
        // in it, and each later one was then held behind it, a command a buffer late).
        var allowed = shared.pointee.commands.count
        let rewound = shared.pointee.commands.peek() != nil && rewindForCommands()
        var room = onlyDue ? 0 : pcm.availUpdate()
        if room < 0 {
            guard recover(code: Int32(truncatingIfNeeded: room), call: .wait, pushed: &pushed) else { return nil }
            room = 0
        }
        // After a rewind, the buffer is filled again only as far as `refillAfterRewind`
        // (a sixth of a second); the next wake for room fills the rest. However deep the
        // buffer, a command then renders no more at once than a 170 ms buffer did: at
        // 75 % speed, a command's re-render of a 512 ms buffer in one go, command after
        // command, fell behind the device.
        if rewound { room = min(room, refillAfterRewind) }
        guard let deferred = refill(room: &room, allowed: &allowed, pushed: &pushed) else { return nil }
        // The start threshold is the buffer; one that is not a whole number of chunks
        // is never reached by whole chunks, so a full, prepared device is started here.
        if room < periodFrames && pcm.state == .prepared { pcm.start() }
        let timeout = settle(pushed: pushed)
        // A command deferred from the refill: back at once, to rewind for it.
        return deferred ? 0 : timeout
    }

    /// Renders chunk by chunk while `room` holds one, writing as it goes. Returns whether a
    /// command that came during the refill was left for the next pass, or nil when the
    /// device failed for good.
    private mutating func refill(room: inout Int, allowed: inout Int, pushed: inout Bool) -> Bool? {
        let chunk = periodFrames
        var staged = 0
        var deferred = false
        while room >= chunk {
            probe.chunkStarting(commandFD: shared.pointee.commandFD, wakeFD: shared.pointee.wakeFD)
            let clock = renderer.clockInPlace()
            snapshots[slot(clock)] = renderer.snapshotInPlace()
            if let applied = renderPeriod(into: staging.floats + staged &* 2, allowed: &allowed) {
                lastApplied = applied
            }
            hold(pushed: &pushed)
            staged &+= chunk
            room &-= chunk
            deferred = allowed == 0 && shared.pointee.commands.peek() != nil
            // One write for the whole refill (each write through alsa-lib's plugins has
            // its cost), but the chunk a command changed goes out at once, and so does
            // what is staged when a command came during the refill.
            let changed = pending && timing.frame &+ 1 < renderer.clockInPlace()
            guard changed || deferred || room < chunk || staged &+ chunk > staging.frames else { continue }
            staging.convert(frames: staged)
            probe.beforeWrite()
            guard write(frames: staged, pushed: &pushed) else { return nil }
            staged = 0
            if changed {
                pushed = handedOver(through: renderer.clockInPlace(), delay: pcm.delay() ?? 0) || pushed
                pending = false
            }
            if deferred { break }
        }
        return deferred
    }

    /// After the refill: publishes what was handed over, the device's clock, the history;
    /// releases the reports and the position of what is settled; wakes the control side
    /// when it has news. Returns how long to sleep next.
    private mutating func settle(pushed: Bool) -> Int {
        var pushed = pushed
        let clock = renderer.clockInPlace()
        shared.pointee.framesHanded.store(clock, ordering: .releasing)
        var delay = 0
        if let frames = pcm.delay() {
            delay = frames
            noteDeviceClock(written: clock, delay: delay, fresh: false)
            notePointer(clock &- Int64(delay))
        }
        shared.pointee.delayFrames.store(delay, ordering: .relaxed)
        publishHistory()

        // Frames before `settled` are played or inside the guard: never rendered again.
        let guardFrames = rewindGuardFrames &+ renderer.stretchGuardFramesInPlace(before: nil)
        let settled = max(settledFloor, min(clock, clock &- Int64(delay) &+ Int64(guardFrames)))
        settledFloor = settled
        pushed = release(before: settled) || pushed
        pushed = publishPosition(settled: settled) || pushed
        if sparesWereTaken() || pushed { wake() }
        return millisecondsUntilNextWake(settled: settled, clock: clock)
    }

    /// Snapshot slot of a chunk boundary.
    @inline(__always)
    func slot(_ boundary: Int64) -> Int {
        Int(truncatingIfNeeded: (boundary / Int64(periodFrames)) % Int64(snapshotCount))
    }

    /// Frames rendered in the wake that rewound: a sixth of a second, in chunks.
    @inline(__always)
    var refillAfterRewind: Int {
        max(periodFrames, Int(sampleRate) / 6 / periodFrames * periodFrames)
    }
}

// MARK: Sleeping

extension RenderContext {
    /// Sleeps until the device has room for the wake threshold, a command is queued (the
    /// control side bumps the command eventfd after each, and to stop), or `milliseconds`
    /// pass (-1: no limit but `pollLimitMilliseconds`). False when the device failed for
    /// good (reported). `room`: whether the device woke it (its pointer has just moved);
    /// `timedOut`: whether the time ran out with nothing else.
    mutating func wait(milliseconds: Int, room: inout Bool, timedOut: inout Bool) -> Bool {
        room = false
        timedOut = false
        let count = pcmPollCount
        let limit = milliseconds < 0 ? Self.pollLimitMilliseconds : min(milliseconds, Self.pollLimitMilliseconds)
        let deadline = monotonicNanoseconds() &+ Int64(limit) &* 1_000_000
        var remaining = limit
        while true {
            var i = 0
            while i <= count { pollFDs[i].revents = 0; i &+= 1 }
            let ready = poll(pollFDs, nfds_t(count &+ 1), Int32(remaining))
            if ready <= 0 {
                timedOut = ready == 0
                return true
            }
            let command = pollFDs[count].revents & Int16(POLLIN) != 0
            if command { EventDescriptor.take(shared.pointee.commandFD) }
            let events = pcm.pollEvents(pollFDs, count: count)
            room = (events ?? 0) & UInt16(POLLOUT) != 0
            if events == nil || events! & UInt16(POLLERR) != 0 { return recoverAfterPoll() }
            // A descriptor can be readable with no room (alsa-lib's jack plugin signals room
            // through a socket that only `revents` drains, once the refill has taken the room
            // away): that wake brings nothing, so sleep again rather than run the refill's
            // round of device calls for it, until the same deadline.
            if room || command || events != 0 { return true }
            let left = deadline &- monotonicNanoseconds()
            if left <= 0 {
                timedOut = true
                return true
            }
            remaining = Int((left &+ 999_999) / 1_000_000)
        }
    }

    /// An xrun or a suspend seen by `poll`: the state says which; recovers as a write would.
    /// False when the device failed for good (reported).
    private mutating func recoverAfterPoll() -> Bool {
        let avail = pcm.availUpdate()
        guard avail < 0 else { return true }
        var pushed = false
        guard recover(code: Int32(truncatingIfNeeded: avail), call: .wait, pushed: &pushed) else { return false }
        wake()
        return true
    }
}
