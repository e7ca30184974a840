extension RenderState {
    /// Renders `frames` frames: events fire at their exact frame, and between events
    /// runs of frames are mixed with the state's kind fixed (a ramp progresses but does
    /// not end inside a run), so the result does not depend on how calls split the output.
    mutating func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            processEvents()
            primeAhead()
            noteSpan()
            let n = runLength(limit: Int64(frames &- done))
            mix(into: out + done &* 2, count: n)
            done &+= n
        }
        // Settle what is due at the next frame now, so reports and `isSounding` are
        // current when the caller looks between calls.
        if frames > 0 { processEvents() }
    }

    /// Frames until the next event, at least 1 and at most `limit`.
    func runLength(limit: Int64) -> Int {
        var n = limit
        if mode != .idle {
            let stop = loop.active && main.pos < loop.end ? loop.end : main.frames
            n = Self.least(n, main.outputFrames(until: stop))
            // The part's fade at its end begins a run of its own.
            if main.fadeOut > 0 && main.pos < main.fadeStart {
                n = Self.least(n, main.outputFrames(until: main.fadeStart))
            }
            if positionInterval > 0 {
                n = Self.least(n, positionInterval &- clock % positionInterval)
            }
        }
        if levelStep > 0 { n = Self.least(n, Int64(ramp &- level)) }
        if levelStep < 0 { n = Self.least(n, Int64(level)) }
        if partnerActive { n = Self.least(n, Int64(crossfade &- partnerStep)) }
        if fadingLevel > 0 { n = Self.least(n, Int64(fadingLevel)) }
        if tick.isActive { n = Self.least(n, Int64(tick.length &- tick.index)) }
        if announcement.isActive { n = Self.least(n, Int64(announcement.length &- announcement.index)) }
        if fadingTickLevel > 0 {
            n = Self.least(n, Int64(fadingTickLevel))
            n = Self.least(n, Int64(fadingTick.length &- fadingTick.index))
        }
        if volumeStep < volumeRamp { n = Self.least(n, Int64(volumeRamp &- volumeStep)) }
        if countdown.active { n = Self.least(n, countdownEventClock() &- clock) }
        if primesAhead { n = Self.least(n, Self.primeGrid &- clock % Self.primeGrid) }
        return n < 1 ? 1 : Int(truncatingIfNeeded: n)
    }

    @inline(__always)
    static func least(_ a: Int64, _ b: Int64) -> Int64 { b < a ? b : a }

    /// Mixes `count` frames in which no event falls.
    mutating func mix(into out: UnsafeMutablePointer<Float>, count: Int) {
        let rampF = Float(ramp)
        let steady = levelStep == 0 && !partnerActive && fadingLevel == 0 && !tick.isActive
            && !announcement.isActive
            && fadingTickLevel == 0 && volumeStep >= volumeRamp
            && !(mode != .idle && (main.isStretched || main.inEndFade))
        if steady {
            if mode != .idle, let base = main.base {
                // Same expression as the general path, so a frame's value does not
                // depend on which path rendered it.
                let g = Float(level) / rampF * volumeTo
                let src = base + Int(truncatingIfNeeded: main.pos) &* 2
                var j = 0
                while j < count &* 2 {
                    out[j] = Float(src[j]) * Voice.scale * g
                    j &+= 1
                }
                main.pos &+= Int64(count)
            } else {
                var j = 0
                while j < count &* 2 {
                    out[j] = 0
                    j &+= 1
                }
            }
            clock &+= Int64(count)
            return
        }

        let crossfadeF = Float(crossfade)
        var j = 0
        while j < count {
            let vol = volume()
            var l: Float = 0
            var r: Float = 0
            if mode != .idle, let base = main.base {
                if main.isStretched {
                    (l, r) = mainStretchedFrame()
                } else {
                    let i = Int(truncatingIfNeeded: main.pos) &* 2
                    l = Float(base[i]) * Voice.scale
                    r = Float(base[i &+ 1]) * Voice.scale
                }
                if main.inEndFade {
                    let e = main.endFadeGain
                    l = l * e
                    r = r * e
                }
                if partnerActive {
                    let (pl, pr) = partnerFrame()
                    let w = Float(partnerStep) / crossfadeF
                    l = l * w + pl * (1 - w)
                    r = r * w + pr * (1 - w)
                    partnerStep &+= 1
                }
                let g = Float(level) / rampF * vol
                l = l * g
                r = r * g
                if main.isStretched { main.stepStretched() } else { main.pos &+= 1 }
                level &+= levelStep
            }
            if fadingLevel > 0 {
                let (fl, fr) = fadingFrame()
                let g = Float(fadingLevel) / Float(fadingSpan) * vol
                l += fl * g
                r += fr * g
                fadingLevel &-= 1
            }
            if tick.isActive, let samples = tick.samples {
                let s = samples[Int(tick.index)] * tick.gain * vol
                l += s
                r += s
                tick.index &+= 1
            }
            if announcement.isActive, let samples = announcement.samples {
                let s = samples[Int(announcement.index)] * announcement.gain * vol
                l += s
                r += s
                announcement.index &+= 1
            }
            if fadingTickLevel > 0, let samples = fadingTick.samples {
                let s = samples[Int(fadingTick.index)] * (Float(fadingTickLevel) / rampF) * vol
                l += s
                r += s
                fadingTick.index &+= 1
                fadingTickLevel &-= 1
            }
            out[j &* 2] = l
            out[j &* 2 &+ 1] = r
            if volumeStep < volumeRamp { volumeStep &+= 1 }
            j &+= 1
        }
        clock &+= Int64(count)
    }
}

// MARK: Stretched voices

extension RenderState {
    /// The stretch slots the sounding voices hold, a bit each.
    func busySlots() -> UInt32 {
        var bits: UInt32 = 0
        if mode != .idle && main.isStretched && main.slot >= 0 { bits |= 1 << UInt32(main.slot) }
        if partnerActive && partner.isStretched && partner.slot >= 0 { bits |= 1 << UInt32(partner.slot) }
        if fadingLevel > 0 && fading.isStretched && fading.slot >= 0 { bits |= 1 << UInt32(fading.slot) }
        return bits
    }

    /// Frame `k` of the stream `key`: from the slot running it, else from a slot where it
    /// starts now (a stream is a function of its key, so a fresh start makes the same
    /// samples) on a stretcher no slot in `protected` holds. Returns the slot as the voice's
    /// next hint (-1 and silence when no stretcher was free).
    /// With `preferRunning` (the main voice), a slot whose stream still has its stretcher is
    /// taken before one that only has the frame in its ring (a loop's next pass started again
    /// ahead of the seam after its first start lost its stretcher).
    func streamFrame(_ key: StreamKey, _ k: Int64, hint: Int32, protected: UInt32, preferRunning: Bool = false)
        -> (Int32, Float, Float) {
        guard pool.count > 0 else { return (-1, 0, 0) }
        var i = preferRunning ? pool.find(key, at: k, hint: hint, running: true) : -1
        if i < 0 { i = pool.find(key, at: k, hint: hint) }
        if i < 0 {
            i = pool.free(busy: busySlots())
            if i < 0 { i = hint >= 0 && Int(hint) < pool.count ? Int(hint) : 0 }
            guard pool.start(i, key, clock: clock, protected: protected) else {
                pool.counters[0] &+= 1
                return (-1, 0, 0)
            }
        }
        let (l, r) = pool.frame(i, k)
        return (Int32(i), l, r)
    }

    /// Output frames the main voice's stream is run ahead of the frame read: a voice that
    /// leaves the main one (crossfade partner, fade-out) reads at most this many more, so it
    /// finds them in its ring and its stretcher can go to the next stream.
    var streamLookahead: Int64 { Int64(crossfade > ramp ? crossfade : ramp) &+ 1 }

    /// The main voice's stretched frame (the caller steps it). Its stream may take any
    /// stretcher (the one held longest by another stream first), and is run
    /// `streamLookahead` frames ahead.
    @inline(__always)
    mutating func mainStretchedFrame() -> (Float, Float) {
        let (slot, l, r) = streamFrame(main.key, main.out, hint: main.slot, protected: 0, preferRunning: true)
        main.slot = slot
        if slot >= 0 { _ = pool.frame(Int(slot), main.out &+ streamLookahead) }
        return (l, r)
    }

    /// The main voice's slot as a bit, when it holds a stream; 0 otherwise.
    var mainSlotBit: UInt32 {
        mode != .idle && main.isStretched && main.slot >= 0 ? 1 << UInt32(main.slot) : 0
    }

    /// The crossfade partner's frame, stepped.
    @inline(__always)
    mutating func partnerFrame() -> (Float, Float) {
        var voice = partner
        let f = steppedFrame(&voice)
        partner = voice
        return f
    }

    /// The fading voice's frame, stepped.
    @inline(__always)
    mutating func fadingFrame() -> (Float, Float) {
        var voice = fading
        let f = steppedFrame(&voice)
        fading = voice
        return f
    }

    /// `voice`'s frame, read directly at 100 % or from its stretched stream, then stepped.
    /// (`voice` is a copy the caller writes back: a plain struct, no reference counting.)
    @inline(__always)
    mutating func steppedFrame(_ voice: inout Voice) -> (Float, Float) {
        guard voice.isStretched else {
            let f = voice.frame()
            voice.pos &+= 1
            return f
        }
        let (slot, l, r) = streamFrame(voice.key, voice.out, hint: voice.slot, protected: mainSlotBit)
        voice.slot = slot
        let e = voice.inEndFade ? voice.endFadeGain : 1
        voice.stepStretched()
        return (l * e, r * e)
    }

    /// Output frames between the clocks a stream due to start is fed at (`primeAhead`).
    static let primeGrid = Int64(StretchPool.block)

    /// Whether a stream may be due to start ahead of need: stretch voices, a speed other
    /// than 100 %. Runs then end at each `primeGrid` clock, where `primeAhead` runs.
    var primesAhead: Bool { pool.count > 0 && speed != 100 }

    /// A stream the music will need is started before it is needed, and fed one source block
    /// at each `primeGrid` clock until it holds the frames the main voice reads first (its
    /// start pad and delay: seven blocks at 75 % with Rubber Band R3, 0.7 ms here, far more on
    /// a slow board or under emulation, in one period if left to the frame that needs it).
    /// Known ahead: the music's start at the end of a count-in (the countdown's start at the
    /// current speed), and a seamless loop's next pass within a quarter second of source
    /// before its seam (A at the current speed), so a wrap crossfades two running streams.
    /// On the clock's grid, not per call: the work, and which stretcher a stream takes, do
    /// not depend on how calls split the output.
    mutating func primeAhead() {
        guard primesAhead, clock % Self.primeGrid == 0, lastPrime != clock else { return }
        lastPrime = clock
        let origin: Int64
        var at = speed
        if countdown.active && main.base != nil {
            origin = clampToPart(countdown.start)
        } else if mode == .playing, main.isStretched, loop.active, loop.countdown == 0, loop.countIn.beats == 0,
                  loop.pause == 0, loop.passes == 0 || loop.pass < loop.passes,
                  main.pos < loop.end, loop.end &- main.pos <= rate / 4 {
            origin = loop.restart
            // A ramp's next pass starts at its own speed.
            at = loop.ramp.speed(ofPass: loop.pass &+ 1) ?? speed
        } else {
            return
        }
        guard at != 100 else { return }
        let key = StreamKey(base: main.base, frames: main.frames, origin: origin, speed: at)
        var i = pool.find(key, at: 0, hint: -1, running: true)
        if i < 0 {
            i = pool.free(busy: busySlots())
            guard i >= 0, pool.start(i, key, clock: clock, protected: mainSlotBit) else { return }
        }
        if pool.slots[i].produced <= streamLookahead { pool.pump(i) }
    }
}
