import ALSA
import CALSA
import LinuxSystem
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's body with deep-buffer scheduling (`EngineConfiguration.Rewind`).
///
/// The whole device buffer is kept full, chunk by chunk, and the renderer's state is kept
/// at every chunk boundary (`RenderContext.snapshots`). The thread sleeps in one `poll`
/// on the PCM and the command eventfd until three quarters of the buffer have played, a command
/// arrives, or a held report is due. With a command waiting it rewinds the device
/// (`snd_pcm_rewind`) to the first chunk boundary at least the guard past the frame
/// playing now (or to the boundary before a timed command's frame, if that is later),
/// restores the snapshot of that boundary and renders on from there: the command sounds
/// after the guard, not after the buffer, and the output is what the renderer makes of
/// the commands applied at those frames, as with period-by-period writes.
///
/// While audio plays at a speed other than 100 % (or the command sets one), the guard grows by
/// `Renderer.stretchGuardFrames` (16 ms): starting a stretched stream takes longer than 128
/// frames leave before the device needs the new chunk.
///
/// Reports of frames that may still be rendered again are held back until the device has
/// played up to the guard before them, so the control side hears of a tick, a loop or a
/// part's end once and only once; the position published is the one at that point too.
///
/// The same rules as `RenderLoop`: nothing here allocates, locks, logs, touches the disk
/// or retains an object. One ALSA call more than the refill needs: `snd_pcm_delay` as it
/// wakes for room (a few times a second), for the device's clock (`heard(at:)`).
enum RewindingRenderLoop {
    /// The longest sleep with nothing due: a stop and a command bump the command eventfd,
    /// and the device's room wakes the thread, so this only bounds a device that stopped
    /// signalling. Longer than a deep buffer's refill interval, so it adds no wakes.
    static let pollLimitMilliseconds = 1_000

    static func run(_ c: UnsafeMutablePointer<RenderContext>) {
        if let probe = c.pointee.probe { probe.begin() }
        let chunk = c.pointee.periodFrames
        var pending = false
        var timing = CommandTiming(firstEpoch: 0, lastEpoch: 0, frame: 0, handedAt: 0, handedThrough: 0,
                                   delayFrames: 0)
        // A rewind never goes back to or before the frame of the last command applied.
        var lastApplied = Int64.min
        // Frames before it were settled (played, or inside the guard then): never rendered again,
        // also when the guard shrinks (the speed back at 100 %).
        var settledFloor = Int64.min
        var timeout = 0
        var roomWake = false
        var timedOut = false
        while !c.pointee.stopRequested.load(ordering: .relaxed) {
            guard wait(c, milliseconds: timeout, room: &roomWake, timedOut: &timedOut) else { break }
            if c.pointee.stopRequested.load(ordering: .relaxed) { break }
            if roomWake {
                // The device's clock, read the moment its pointer woke the thread: after the
                // refill it would be stale by the refill's time (a pointer that moves a
                // period at a time does not move during it).
                var delay: snd_pcm_sframes_t = 0
                if snd_pcm_delay(c.pointee.pcm, &delay) >= 0 {
                    c.pointee.noteDeviceClock(written: c.pointee.renderer.clockInPlace(), delay: delay, fresh: true)
                }
            }
            var pushed = false

            // The commands this pass may apply: those waiting now, which the rewind below is
            // for. One that comes while the buffer is refilled is not applied in the refill,
            // up to a whole buffer past the play head: the refill stops, and the next pass
            // rewinds for it (at 75 % speed a refill takes long enough for commands to land
            // in it, and each later one was then held behind it, a command a buffer late).
            var allowed = c.pointee.commands.count
            var deferred = false
            let rewound = c.pointee.commands.peek() != nil
                && rewindForCommands(c, lastApplied: lastApplied, settledFloor: settledFloor)

            // Fill the buffer, unless this wake only tells the control side of a moment it
            // shows (a tick, a wrap, a watched position): then the buffer still holds more than the
            // device's wake threshold, and it is left to the next wake for room rather than
            // topped up a little (each refill costs a round of device calls, and a deep
            // buffer is there to be refilled a few times a second).
            let onlyDue = timedOut && !roomWake && timeout >= 0 && timeout < pollLimitMilliseconds
                && c.pointee.commands.peek() == nil && snd_pcm_state(c.pointee.pcm) == SND_PCM_STATE_RUNNING
            var room = onlyDue ? 0 : snd_pcm_avail_update(c.pointee.pcm)
            if room < 0 {
                guard RenderLoop.recover(c, code: Int32(truncatingIfNeeded: room), call: .wait, pushed: &pushed)
                else { break }
                room = 0
            }
            // After a rewind, the buffer is filled again only as far as `refillAfterRewind`
            // (a sixth of a second); the next wake for room fills the rest. However deep the
            // buffer, a command then renders no more at once than a 170 ms buffer did: at
            // 75 % speed, a command's re-render of a 512 ms buffer in one go, command after
            // command, fell behind the device.
            if rewound { room = min(room, snd_pcm_sframes_t(refillAfterRewind(c))) }
            var failed = false
            var staged = 0
            while room >= chunk {
                if c.pointee.holdForCommand.load(ordering: .relaxed) == 1 { holdForCommand(c) }
                let clock = c.pointee.renderer.clockInPlace()
                c.pointee.snapshots[slot(c, clock)] = c.pointee.renderer.snapshotInPlace()
                if let applied = RenderLoop.renderPeriod(c, into: c.pointee.floats + staged &* 2, pending: &pending,
                                                         timing: &timing, allowed: &allowed) {
                    lastApplied = applied
                }
                hold(c, pushed: &pushed)
                staged &+= chunk
                room &-= chunk
                deferred = allowed == 0 && c.pointee.commands.peek() != nil
                // One write for the whole refill (each write through alsa-lib's plugins has
                // its cost), but the chunk a command changed goes out at once, and so does
                // what is staged when a command came during the refill.
                let changed = pending && timing.frame &+ 1 < c.pointee.renderer.clockInPlace()
                guard changed || deferred || room < chunk || staged &+ chunk > c.pointee.stagingFrames else { continue }
                if c.pointee.converts {
                    SampleConversion.convert(c.pointee.floats, count: staged &* 2, to: c.pointee.format,
                                             into: c.pointee.bytes)
                }
                let stall = c.pointee.stallNanoseconds.exchange(0, ordering: .relaxed)
                if stall > 0 { RenderLoop.sleep(nanoseconds: stall) }
                guard RenderLoop.write(c, frames: staged, pushed: &pushed) else { failed = true; break }
                staged = 0
                if changed {
                    var delay: snd_pcm_sframes_t = 0
                    if snd_pcm_delay(c.pointee.pcm, &delay) < 0 { delay = 0 }
                    pushed = RenderLoop.handedOver(c, &timing, through: c.pointee.renderer.clockInPlace(), delay: delay) || pushed
                    pending = false
                }
                if deferred { break }
            }
            if failed { break }
            // The start threshold is the buffer; one that is not a whole number of chunks
            // is never reached by whole chunks, so a full, prepared device is started here.
            if room < chunk && snd_pcm_state(c.pointee.pcm) == SND_PCM_STATE_PREPARED {
                _ = snd_pcm_start(c.pointee.pcm)
            }

            let clock = c.pointee.renderer.clockInPlace()
            c.pointee.framesHanded.store(clock, ordering: .releasing)
            var delay: snd_pcm_sframes_t = 0
            if snd_pcm_delay(c.pointee.pcm, &delay) < 0 {
                delay = 0
            } else {
                c.pointee.noteDeviceClock(written: clock, delay: delay, fresh: false)
                c.pointee.notePointer(clock &- Int64(delay))
            }
            c.pointee.delayFrames.store(delay, ordering: .relaxed)
            c.pointee.publishHistory()

            // Frames before `settled` are played or inside the guard: never rendered again.
            let guardFrames = c.pointee.rewindGuardFrames &+ c.pointee.renderer.stretchGuardFramesInPlace(before: nil)
            let settled = max(settledFloor, min(clock, clock &- Int64(delay) &+ Int64(guardFrames)))
            settledFloor = settled
            pushed = release(c, before: settled) || pushed
            pushed = publishPosition(c, settled: settled) || pushed
            if pushed { RenderLoop.wake(c) }
            // A command deferred from the refill: back at once, to rewind for it.
            timeout = deferred ? 0 : millisecondsUntilNextWake(c, settled: settled, clock: clock)
        }
        if let probe = c.pointee.probe { c.pointee.probeResult.store(probe.end(), ordering: .releasing) }
        RenderLoop.wake(c)
    }

    /// Test hook (`RealtimeAudioEngine.holdForCommand`): tells the control side it holds,
    /// then waits on the command eventfd (a second at most) so that a command arrives
    /// inside the refill, at a known place.
    static func holdForCommand(_ c: UnsafeMutablePointer<RenderContext>) {
        c.pointee.holdForCommand.store(2, ordering: .releasing)
        RenderLoop.wake(c)
        var fd = pollfd(fd: c.pointee.commandFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 1_000)
        c.pointee.holdForCommand.store(0, ordering: .releasing)
    }

    /// Snapshot slot of a chunk boundary.
    @inline(__always)
    static func slot(_ c: UnsafeMutablePointer<RenderContext>, _ boundary: Int64) -> Int {
        Int(truncatingIfNeeded: (boundary / Int64(c.pointee.periodFrames)) % Int64(c.pointee.snapshotCount))
    }

    /// Frames rendered in the wake that rewound (`run`): a sixth of a second, in chunks.
    @inline(__always)
    static func refillAfterRewind(_ c: UnsafeMutablePointer<RenderContext>) -> Int {
        let chunk = c.pointee.periodFrames
        return max(chunk, c.pointee.renderer.sampleRate / 6 / chunk * chunk)
    }

    /// Rewinds the device and the renderer as far as the first waiting command allows.
    /// True when it rewound.
    static func rewindForCommands(_ c: UnsafeMutablePointer<RenderContext>, lastApplied: Int64, settledFloor: Int64) -> Bool {
        guard let first = c.pointee.commands.peek() else { return false }
        let chunk = Int64(c.pointee.periodFrames)
        let clock = c.pointee.renderer.clockInPlace()
        // snd_pcm_avail synchronises the hardware pointer first: snd_pcm_rewindable alone
        // answers from the pointer as of the last update, which after a long sleep is far
        // behind, and a rewind that trusts it rewrites frames already played.
        guard snd_pcm_avail(c.pointee.pcm) >= 0 else { return false }
        let rewindable = snd_pcm_rewindable(c.pointee.pcm)
        guard rewindable > 0 else { return false }
        // The earliest frame that may change: the one playing now plus the guard.
        // A command that starts a stretched stream needs more time for its first chunk.
        let guardFrames = c.pointee.rewindGuardFrames &+ c.pointee.renderer.stretchGuardFramesInPlace(before: first.command.command)
        let pointer = clock &- Int64(rewindable)
        c.pointee.notePointer(pointer)
        var earliest = pointer &+ Int64(guardFrames)
        if c.pointee.pointerMovesByPeriods {
            // A device whose pointer moves a period at a time took the period from `pointer`
            // as it started to play, and takes the next as that starts: a rewind lands on a
            // period it has not taken, one whose start is a guard or more away from the frame
            // playing now (the device's clock, projected).
            let period = c.pointee.devicePeriodFrames
            let anchored = c.pointee.anchorT == 0 ? pointer
                : c.pointee.anchorF &+ (monotonicNanoseconds() &- c.pointee.anchorT) &* c.pointee.sampleRate / 1_000_000_000
            let ahead = max(pointer, anchored) &+ Int64(guardFrames) &- pointer
            earliest = pointer &+ max(1, (ahead &+ period &- 1) / period) &* period
        }
        earliest = max(earliest, settledFloor)
        var target = (earliest &+ chunk &- 1) / chunk &* chunk
        if lastApplied != Int64.min { target = max(target, lastApplied / chunk &* chunk &+ chunk) }
        if first.frame != QueuedCommand.nextBoundary { target = max(target, first.frame / chunk &* chunk) }
        guard target < clock, clock &- target <= Int64(c.pointee.snapshotCount &- 1) &* chunk else { return false }
        let index = slot(c, target)
        guard c.pointee.snapshots[index].clock == target else { return false }
        let frames = clock &- target
        let rewound = snd_pcm_rewind(c.pointee.pcm, snd_pcm_uframes_t(frames))
        if Int64(rewound) == frames {
            c.pointee.renderer.restore(c.pointee.snapshots[index])
            // History entries from the target on are written again.
            c.pointee.spanSynced = min(c.pointee.spanSynced, c.pointee.renderer.historyCount)
            while c.pointee.heldCount > 0 && c.pointee.heldReports[c.pointee.heldCount &- 1].frame >= target {
                c.pointee.heldCount &-= 1
            }
            c.pointee.rewinds.wrappingIncrement(ordering: .relaxed)
            return true
        } else {
            // Cut short: go back to where the buffer was; the command applies there.
            if rewound > 0 { _ = snd_pcm_forward(c.pointee.pcm, snd_pcm_uframes_t(rewound)) }
            c.pointee.rewindsRefused.wrappingIncrement(ordering: .relaxed)
            return false
        }
    }

    /// Moves the renderer's reports of the chunk just rendered to the held list (pushing
    /// them at once if it is full).
    static func hold(_ c: UnsafeMutablePointer<RenderContext>, pushed: inout Bool) {
        let count = c.pointee.renderer.reportCountInPlace()
        var i = 0
        while i < count {
            let report = c.pointee.renderer.reportInPlace(at: i)
            if c.pointee.heldCount < c.pointee.heldCapacity {
                c.pointee.heldReports[c.pointee.heldCount] = report
                c.pointee.heldCount &+= 1
            } else {
                pushed = RenderLoop.push(c, .report(report)) || pushed
            }
            i &+= 1
        }
        c.pointee.renderer.removeAllReports()
    }

    /// Pushes the held reports of frames before `settled`. True when one worth waking the
    /// control side for was pushed (`RenderLoop.wakes`: not a position).
    static func release(_ c: UnsafeMutablePointer<RenderContext>, before settled: Int64) -> Bool {
        var n = 0
        var notable = false
        while n < c.pointee.heldCount && c.pointee.heldReports[n].frame < settled {
            let report = c.pointee.heldReports[n]
            if RenderLoop.push(c, .report(report)) && RenderLoop.wakes(report.report) { notable = true }
            n &+= 1
        }
        guard n > 0 else { return false }
        let rest = c.pointee.heldCount &- n
        if rest > 0 { c.pointee.heldReports.update(from: c.pointee.heldReports + n, count: rest) }
        c.pointee.heldCount = rest
        return notable
    }

    /// Publishes the position and epoch at the last chunk boundary before `settled`
    /// (the renderer's own when everything written is settled). True when it reached the
    /// control side's watch (`RenderContext.wakePosition`).
    static func publishPosition(_ c: UnsafeMutablePointer<RenderContext>, settled: Int64) -> Bool {
        let clock = c.pointee.renderer.clockInPlace()
        let chunk = Int64(c.pointee.periodFrames)
        let boundary = settled / chunk &* chunk
        if boundary < clock, clock &- boundary < Int64(c.pointee.snapshotCount) &* chunk {
            let snapshot = c.pointee.snapshots[slot(c, boundary)]
            if snapshot.clock == boundary {
                return c.pointee.publishPosition(snapshot.position, snapshot.epoch)
            }
        }
        return c.pointee.publishPosition(c.pointee.renderer.positionInPlace(), c.pointee.renderer.epochInPlace())
    }

    /// How long until the next moment the control side must hear of, as the device plays
    /// on, in milliseconds rounded up; -1 (no limit) when none is known. Two set a wake of
    /// their own; positions go with the next wake (for room, a few times a second however
    /// deep the buffer, or the control side's own):
    /// - the oldest held report other than a position (a tick, a start, a loop, an end);
    /// - the chunk boundary whose position first reaches the control side's watch
    ///   (`RenderContext.wakePosition`), among those rendered, so a watch is met when its
    ///   frame is played, not at the next refill.
    static func millisecondsUntilNextWake(_ c: UnsafeMutablePointer<RenderContext>, settled: Int64, clock: Int64) -> Int {
        var due = Int64.max
        let rate = Int64(c.pointee.renderer.sampleRate)
        var i = 0
        while i < c.pointee.heldCount {
            if case .position = c.pointee.heldReports[i].report.kind {
                i &+= 1
                continue
            }
            due = c.pointee.heldReports[i].frame
            break
        }
        let watched = c.pointee.wakePosition.load(ordering: .relaxed)
        if watched != Int64.max {
            let chunk = Int64(c.pointee.periodFrames)
            // The boundaries publishPosition can publish from here on: rendered, snapshot kept.
            var boundary = (settled &+ chunk &- 1) / chunk &* chunk
            let oldest = clock &- Int64(c.pointee.snapshotCount &- 1) &* chunk
            if boundary < oldest { boundary = (oldest &+ chunk &- 1) / chunk &* chunk }
            while boundary < clock && boundary < due {
                // Read in place: a snapshot is a whole renderer state.
                let snapshot = c.pointee.snapshots + slot(c, boundary)
                if snapshot.pointee.clock == boundary && snapshot.pointee.position >= watched {
                    due = boundary
                    break
                }
                boundary &+= chunk
            }
        }
        guard due != Int64.max else { return -1 }
        let frames = max(0, due &- settled) &+ 1
        return Int(truncatingIfNeeded: (frames &* 1_000 &+ rate &- 1) / rate)
    }

    /// Sleeps until the device has room for the wake threshold, a command is queued (the
    /// control side bumps the command eventfd after each, and to stop), or `milliseconds`
    /// pass (-1: no limit but `pollLimitMilliseconds`). False when the device failed for
    /// good (reported). `room`: whether the device woke it (its pointer has just moved);
    /// `timedOut`: whether the time ran out with nothing else.
    static func wait(_ c: UnsafeMutablePointer<RenderContext>, milliseconds: Int, room: inout Bool,
                     timedOut: inout Bool) -> Bool {
        room = false
        timedOut = false
        let fds = c.pointee.pollFDs
        let count = c.pointee.pcmPollCount
        let limit = milliseconds < 0 ? pollLimitMilliseconds : min(milliseconds, pollLimitMilliseconds)
        let deadline = monotonicNanoseconds() &+ Int64(limit) &* 1_000_000
        var remaining = limit
        while true {
            var i = 0
            while i <= count { fds[i].revents = 0; i &+= 1 }
            let ready = poll(fds, nfds_t(count &+ 1), Int32(remaining))
            if ready <= 0 {
                timedOut = ready == 0
                return true
            }
            let command = fds[count].revents & Int16(POLLIN) != 0
            if command {
                var drained: UInt64 = 0
                _ = Glibc.read(c.pointee.commandFD, &drained, 8)
            }
            var events: UInt16 = 0
            let result = snd_pcm_poll_descriptors_revents(c.pointee.pcm, fds, UInt32(count), &events)
            room = result >= 0 && events & UInt16(POLLOUT) != 0
            if result < 0 || events & UInt16(POLLERR) != 0 {
                // An xrun or a suspend: the state says which; recover as a write would.
                let avail = snd_pcm_avail_update(c.pointee.pcm)
                if avail < 0 {
                    var pushed = false
                    guard RenderLoop.recover(c, code: Int32(truncatingIfNeeded: avail), call: .wait, pushed: &pushed)
                    else { return false }
                    RenderLoop.wake(c)
                }
                return true
            }
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
}
