import ALSA
import CALSA
import LinuxSystem
import SegmanceAudio
import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's entry point: a plain C function, so the thread starts with no
/// closure context; the argument is the engine's `RenderContext`.
func renderThreadEntry(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    RenderLoop.run(argument.assumingMemoryBound(to: RenderContext.self))
    return nil
}

/// The body of the render thread. Period by period: wait until the device has a period
/// of room, apply the commands that are due (at the boundary, or at the exact frame they
/// carry, splitting the period there), render, convert, write, recover from xruns.
///
/// Nothing here allocates, locks, logs, touches the disk or retains an object: the state
/// is reached through an unsafe pointer, values cross to the control side through the
/// rings and atomics (the play history and the device's clock under seqlocks), and the
/// only calls out are alsa-lib's PCM calls, `clock_gettime` (vDSO, after each delay read),
/// `write` on the wake eventfd and, for the test hook only, `clock_nanosleep`. (The
/// allocation test counts heap calls on this thread across whole runs: 0.)
enum RenderLoop {
    static func run(_ c: UnsafeMutablePointer<RenderContext>) {
        if c.pointee.rewindGuardFrames > 0 {
            RewindingRenderLoop.run(c)
            return
        }
        if let probe = c.pointee.probe { probe.begin() }
        let period = c.pointee.periodFrames
        var pending = false
        var timing = CommandTiming(firstEpoch: 0, lastEpoch: 0, frame: 0, handedAt: 0, handedThrough: 0,
                                   delayFrames: 0)
        while !c.pointee.stopRequested.load(ordering: .relaxed) {
            guard waitForRoom(c) else { break }
            if c.pointee.stopRequested.load(ordering: .relaxed) { break }

            var every = Int.max
            renderPeriod(c, into: c.pointee.floats, pending: &pending, timing: &timing, allowed: &every)

            var pushed = false
            let count = c.pointee.renderer.reportCountInPlace()
            var i = 0
            while i < count {
                let report = c.pointee.renderer.reportInPlace(at: i)
                if push(c, .report(report)) && wakes(report.report) { pushed = true }
                i &+= 1
            }
            c.pointee.renderer.removeAllReports()
            if c.pointee.publishPosition(c.pointee.renderer.positionInPlace(), c.pointee.renderer.epochInPlace()) { pushed = true }
            c.pointee.publishHistory()

            if c.pointee.converts {
                SampleConversion.convert(c.pointee.floats, count: period &* 2, to: c.pointee.format,
                                         into: c.pointee.bytes)
            }
            let stall = c.pointee.stallNanoseconds.exchange(0, ordering: .relaxed)
            if stall > 0 { sleep(nanoseconds: stall) }
            guard write(c, frames: period, pushed: &pushed) else { break }

            let clock = c.pointee.renderer.clockInPlace()
            c.pointee.framesHanded.store(clock, ordering: .releasing)
            var delay: snd_pcm_sframes_t = 0
            if snd_pcm_delay(c.pointee.pcm, &delay) >= 0 {
                c.pointee.delayFrames.store(delay, ordering: .relaxed)
                // snd_pcm_wait returned for room: the pointer has just moved.
                c.pointee.noteDeviceClock(written: clock, delay: delay, fresh: true)
            }
            if pending && timing.frame &+ 1 < clock {
                pushed = handedOver(c, &timing, through: clock, delay: delay) || pushed
                pending = false
            }
            if pushed { wake(c) }
        }
        if let probe = c.pointee.probe { c.pointee.probeResult.store(probe.end(), ordering: .releasing) }
        wake(c)
    }

    /// Renders one period (or chunk) into `out`, applying each command due in it at its
    /// frame (a command for the next boundary first thing), at most `allowed` of them
    /// (counted down; a command due past them is left queued). The first command applied
    /// since the last hand-over starts `timing`. Returns the frame of the last command
    /// applied, or nil.
    @discardableResult
    static func renderPeriod(_ c: UnsafeMutablePointer<RenderContext>, into out: UnsafeMutablePointer<Float>,
                             pending: inout Bool, timing: inout CommandTiming, allowed: inout Int) -> Int64? {
        let period = c.pointee.periodFrames
        var applied: Int64? = nil
        var done = 0
        while done < period {
            let clock = c.pointee.renderer.clockInPlace()
            var run = period &- done
            while allowed > 0, let queued = c.pointee.commands.peek() {
                if queued.frame != QueuedCommand.nextBoundary && queued.frame > clock {
                    let ahead = queued.frame &- clock
                    if ahead < Int64(run) { run = Int(truncatingIfNeeded: ahead) }
                    break
                }
                _ = c.pointee.commands.pop()
                allowed &-= 1
                if queued.frame != QueuedCommand.nextBoundary && queued.frame < clock {
                    push(c, .late(epoch: queued.command.epoch, frame: queued.frame, appliedAt: clock))
                }
                if !queued.stretchers.isEmpty { c.pointee.renderer.attach(queued.stretchers) }
                c.pointee.renderer.apply(queued.command)
                applied = clock
                if !pending {
                    pending = true
                    timing.firstEpoch = queued.command.epoch
                    timing.frame = clock
                }
                timing.lastEpoch = queued.command.epoch
            }
            c.pointee.renderer.render(into: out + done &* 2, frames: run)
            done &+= run
        }
        return applied
    }

    /// The frames holding the first changed sample are with ALSA: stamps `timing` and
    /// pushes it. True when pushed.
    static func handedOver(_ c: UnsafeMutablePointer<RenderContext>, _ timing: inout CommandTiming,
                           through clock: Int64, delay: Int) -> Bool {
        timing.handedAt = monotonicNanoseconds()
        timing.handedThrough = clock
        timing.delayFrames = delay
        return push(c, .applied(timing))
    }

    /// Waits until a period fits; recovers an xrun found while waiting. False when the
    /// device failed for good (reported).
    static func waitForRoom(_ c: UnsafeMutablePointer<RenderContext>) -> Bool {
        while true {
            let result = snd_pcm_wait(c.pointee.pcm, 200)
            if result > 0 { return true }
            if result == 0 {
                // Timed out: a stalled device, or a stop request to look at.
                if c.pointee.stopRequested.load(ordering: .relaxed) { return true }
                continue
            }
            var pushed = false
            guard recover(c, code: result, call: .wait, pushed: &pushed) else { return false }
            wake(c)
        }
    }

    /// Writes the converted period; recovers from xruns and suspends on the way.
    static func write(_ c: UnsafeMutablePointer<RenderContext>, frames: Int, pushed: inout Bool) -> Bool {
        var offset = 0
        while offset < frames {
            let result = snd_pcm_writei(c.pointee.pcm, c.pointee.output + offset &* c.pointee.bytesPerFrame,
                                        snd_pcm_uframes_t(frames &- offset))
            if result > 0 {
                offset &+= result
                continue
            }
            let code = Int32(truncatingIfNeeded: result)
            if result == 0 || code == -EAGAIN {
                // No room after all (a blocking PCM should not say so): wait, don't spin.
                _ = snd_pcm_wait(c.pointee.pcm, 200)
                continue
            }
            guard recover(c, code: code, call: .write, pushed: &pushed) else { return false }
        }
        return true
    }

    /// `snd_pcm_recover` for an xrun, a suspend or an interrupted call; counts xruns.
    static func recover(_ c: UnsafeMutablePointer<RenderContext>, code: Int32, call: ALSACall,
                        pushed: inout Bool) -> Bool {
        if code == -EPIPE {
            c.pointee.xruns.wrappingIncrement(ordering: .relaxed)
            pushed = push(c, .xrun(frame: c.pointee.renderer.clockInPlace())) || pushed
        }
        let recovered = snd_pcm_recover(c.pointee.pcm, code, 1)
        if recovered < 0 {
            pushed = push(c, .failed(call, code: code)) || pushed
            return false
        }
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

    /// Pushes an event for the control side, or counts it as dropped. True when pushed.
    @discardableResult
    static func push(_ c: UnsafeMutablePointer<RenderContext>, _ event: RenderEvent) -> Bool {
        if c.pointee.events.push(event) { return true }
        c.pointee.droppedEvents.wrappingIncrement(ordering: .relaxed)
        return false
    }

    static func wake(_ c: UnsafeMutablePointer<RenderContext>) {
        var one: UInt64 = 1
        _ = Glibc.write(c.pointee.wakeFD, &one, 8)
    }

    static func sleep(nanoseconds: Int) {
        sleepUntilMonotonic(monotonicNanoseconds() &+ Int64(nanoseconds))
    }
}
