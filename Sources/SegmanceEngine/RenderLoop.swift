import ALSA
import LinuxSystem
import SegmanceAudio
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// The body of the render thread. Period by period: wait until the device has a period
/// of room, apply the commands that are due (at the boundary, or at the exact frame they
/// carry, splitting the period there), render, convert, write, recover from xruns. With
/// deep-buffer scheduling, `runRewinding` instead (`RewindingRenderLoop.swift`).
///
/// Nothing here allocates, locks, logs, touches the disk or retains an object: values cross
/// to the control side through the rings and atomics of `shared` (the play history, the
/// position and the device's clock under seqlocks), and the only calls out are the PCM's
/// real-time calls (`RealtimePCM`), `clock_gettime` (vDSO, after each delay read) and
/// `write` on the wake eventfd. (The allocation test counts heap calls on this thread
/// across whole runs: 0.)
extension RenderContext {
    mutating func run() {
        probe.threadStarted()
        if rewindGuardFrames > 0 {
            runRewinding()
        } else {
            runPeriods()
        }
        if let result = probe.threadEnding() { shared.pointee.probeResult.store(result, ordering: .releasing) }
        wake()
    }

    /// Period by period, until a stop is asked for or the device fails for good.
    mutating func runPeriods() {
        let period = periodFrames
        while !shared.pointee.stopRequested.load(ordering: .relaxed) {
            guard waitForRoom() else { break }
            if shared.pointee.stopRequested.load(ordering: .relaxed) { break }

            var every = Int.max
            renderPeriod(into: staging.floats, allowed: &every)
            var pushed = pushReports()
            if publishPosition(renderer.positionInPlace(), renderer.epochInPlace()) { pushed = true }
            publishHistory()

            staging.convert(frames: period)
            probe.beforeWrite()
            guard write(frames: period, pushed: &pushed) else { break }

            let clock = renderer.clockInPlace()
            shared.pointee.framesHanded.store(clock, ordering: .releasing)
            var delay = 0
            if let frames = pcm.delay() {
                delay = frames
                shared.pointee.delayFrames.store(delay, ordering: .relaxed)
                // The wait returned for room: the pointer has just moved.
                noteDeviceClock(written: clock, delay: delay, fresh: true)
            }
            if pending && timing.frame &+ 1 < clock {
                pushed = handedOver(through: clock, delay: delay) || pushed
                pending = false
            }
            if sparesWereTaken() || pushed { wake() }
        }
    }

    /// Pushes the renderer's reports of the period just rendered. True when one worth
    /// waking the control side for was pushed.
    mutating func pushReports() -> Bool {
        var pushed = false
        let count = renderer.reportCountInPlace()
        var i = 0
        while i < count {
            let report = renderer.reportInPlace(at: i)
            if push(.report(report)) && Self.wakes(report.report) { pushed = true }
            i &+= 1
        }
        renderer.removeAllReports()
        return pushed
    }

    /// Renders one period (or chunk) into `out`, applying each command due in it at its
    /// frame (a command for the next boundary first thing), at most `allowed` of them
    /// (counted down; a command due past them is left queued). The first command applied
    /// since the last hand-over starts `timing`. Returns the frame of the last command
    /// applied, or nil.
    @discardableResult
    mutating func renderPeriod(into out: UnsafeMutablePointer<Float>, allowed: inout Int) -> Int64? {
        let period = periodFrames
        var applied: Int64? = nil
        var done = 0
        while done < period {
            let clock = renderer.clockInPlace()
            var run = period &- done
            while allowed > 0, let queued = shared.pointee.commands.peek() {
                if queued.frame != QueuedCommand.nextBoundary && queued.frame > clock {
                    let ahead = queued.frame &- clock
                    if ahead < Int64(run) { run = Int(truncatingIfNeeded: ahead) }
                    break
                }
                _ = shared.pointee.commands.pop()
                allowed &-= 1
                apply(queued, at: clock)
                applied = clock
            }
            renderer.render(into: out + done &* 2, frames: run)
            done &+= run
        }
        return applied
    }

    /// Applies a command taken from the ring at output frame `clock`.
    private mutating func apply(_ queued: QueuedCommand, at clock: Int64) {
        if queued.frame != QueuedCommand.nextBoundary && queued.frame < clock {
            push(.late(epoch: queued.command.epoch, frame: queued.frame, appliedAt: clock))
        }
        if !queued.stretchers.isEmpty { renderer.attach(queued.stretchers) }
        renderer.apply(queued.command)
        if !pending {
            pending = true
            timing.firstEpoch = queued.command.epoch
            timing.frame = clock
        }
        timing.lastEpoch = queued.command.epoch
    }

    /// The frames holding the first changed sample are with ALSA: stamps `timing` and
    /// pushes it. True when pushed.
    mutating func handedOver(through clock: Int64, delay: Int) -> Bool {
        timing.handedAt = monotonicNanoseconds()
        timing.handedThrough = clock
        timing.delayFrames = delay
        return push(.applied(timing))
    }

    /// Waits until a period fits; recovers an xrun found while waiting. False when the
    /// device failed for good (reported).
    mutating func waitForRoom() -> Bool {
        while true {
            let result = pcm.wait(timeoutMilliseconds: 200)
            if result > 0 { return true }
            if result == 0 {
                // Timed out: a stalled device, or a stop request to look at.
                if shared.pointee.stopRequested.load(ordering: .relaxed) { return true }
                continue
            }
            var pushed = false
            guard recover(code: result, call: .wait, pushed: &pushed) else { return false }
            wake()
        }
    }

    /// Writes the first `frames` staged frames; recovers from xruns and suspends on the way.
    mutating func write(frames: Int, pushed: inout Bool) -> Bool {
        var offset = 0
        while offset < frames {
            let result = pcm.writei(staging.output + offset &* bytesPerFrame, frames: frames &- offset)
            if result > 0 {
                offset &+= result
                continue
            }
            let code = Int32(truncatingIfNeeded: result)
            if result == 0 || code == -EAGAIN {
                // No room after all (a blocking PCM should not say so): wait, don't spin.
                _ = pcm.wait(timeoutMilliseconds: 200)
                continue
            }
            guard recover(code: code, call: .write, pushed: &pushed) else { return false }
        }
        return true
    }

    /// `snd_pcm_recover` for an xrun, a suspend or an interrupted call; counts xruns.
    mutating func recover(code: Int32, call: ALSACall, pushed: inout Bool) -> Bool {
        if code == -EPIPE {
            shared.pointee.xruns.wrappingIncrement(ordering: .relaxed)
            pushed = push(.xrun(frame: renderer.clockInPlace())) || pushed
        }
        if pcm.recover(code) < 0 {
            pushed = push(.failed(call, code: code)) || pushed
            return false
        }
        return true
    }
}
