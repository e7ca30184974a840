extension RenderState {
    /// Renders `frames` frames: events fire at their exact frame, and between events
    /// runs of frames are mixed with the state's kind fixed (a ramp progresses but does
    /// not end inside a run), so the result does not depend on how calls split the output.
    mutating func render(into out: UnsafeMutablePointer<Float>, frames: Int) {
        var done = 0
        while done < frames {
            processEvents()
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
            n = Self.least(n, stop &- main.pos)
            if positionInterval > 0 {
                n = Self.least(n, positionInterval &- clock % positionInterval)
            }
        }
        if levelStep > 0 { n = Self.least(n, Int64(ramp &- level)) }
        if levelStep < 0 { n = Self.least(n, Int64(level)) }
        if partnerActive { n = Self.least(n, Int64(crossfade &- partnerStep)) }
        if fadingLevel > 0 { n = Self.least(n, Int64(fadingLevel)) }
        if tick.isActive { n = Self.least(n, Int64(tick.length &- tick.index)) }
        if fadingTickLevel > 0 {
            n = Self.least(n, Int64(fadingTickLevel))
            n = Self.least(n, Int64(fadingTick.length &- fadingTick.index))
        }
        if volumeStep < volumeRamp { n = Self.least(n, Int64(volumeRamp &- volumeStep)) }
        if countdown.active { n = Self.least(n, countdownEventClock() &- clock) }
        return n < 1 ? 1 : Int(truncatingIfNeeded: n)
    }

    @inline(__always)
    static func least(_ a: Int64, _ b: Int64) -> Int64 { b < a ? b : a }

    /// Mixes `count` frames in which no event falls.
    mutating func mix(into out: UnsafeMutablePointer<Float>, count: Int) {
        let rampF = Float(ramp)
        let steady = levelStep == 0 && !partnerActive && fadingLevel == 0 && !tick.isActive
            && fadingTickLevel == 0 && volumeStep >= volumeRamp
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
                let i = Int(truncatingIfNeeded: main.pos) &* 2
                l = Float(base[i]) * Voice.scale
                r = Float(base[i &+ 1]) * Voice.scale
                if partnerActive {
                    let (pl, pr) = partner.frame()
                    let w = Float(partnerStep) / crossfadeF
                    l = l * w + pl * (1 - w)
                    r = r * w + pr * (1 - w)
                    partner.pos &+= 1
                    partnerStep &+= 1
                }
                let g = Float(level) / rampF * vol
                l = l * g
                r = r * g
                main.pos &+= 1
                level &+= levelStep
            }
            if fadingLevel > 0 {
                let (fl, fr) = fading.frame()
                let g = Float(fadingLevel) / rampF * vol
                l += fl * g
                r += fr * g
                fading.pos &+= 1
                fadingLevel &-= 1
            }
            if tick.isActive, let samples = tick.samples {
                let s = samples[Int(tick.index)] * vol
                l += s
                r += s
                tick.index &+= 1
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
