/// The part loop and the A–B loop: marking, clearing, saving with the part, and the loop
/// region the audio side needs.
enum LoopRules {
    static func markLoop(_ part: Part, _ state: inout PlayerState) -> [Effect] {
        defer { LoopTimeRules.marked(&state) }
        let here = TransportRules.here(state)
        switch state.loop {
        case .off, .part:
            let wasPart = state.loop == .part
            state.loop = .markedA(BeatRules.snapped(here, state))
            return wasPart ? loopEffects(&state) : []
        case .markedA(let a):
            let minimum = Rules.minimumLoopMilliseconds * state.sampleRate / 1000
            let b = BeatRules.snapped(here, state)
            guard b >= a + minimum else {
                NoticeRules.hint(b < a ? "B must follow A" : "Loop too short", &state)
                return []
            }
            let loop = ABLoop(a: a, b: min(b, part.length))
            state.loop = .ab(loop)
            return loopEffects(&state) + setSavedLoop(loop, &state)
        case .ab:
            state.loop = .off
            return loopEffects(&state) + setSavedLoop(nil, &state)
        }
    }

    /// An A–B loop set on the device is remembered with the part, and in the library.
    static func setSavedLoop(_ loop: ABLoop?, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        state.routines[r].parts[state.partIndex].savedLoop = loop
        return [.persist(.savedLoop(routine: state.routines[r].title, part: state.partIndex,
                                    partTitle: part.title, loop: loop))]
    }

    /// *Stick loop* in the menu: the loop the stick gave the part is in force again and
    /// armed; what the box set for the part's loop (a clear, another loop) is forgotten.
    static func bringBackStickLoop(_ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        guard let stick = part.stickLoop else {
            NoticeRules.hint("No stick loop", &state)
            return []
        }
        state.routines[r].parts[state.partIndex].savedLoop = stick
        return armLoop(stick, &state) + [.persist(.stickLoopBack(routine: state.routines[r].title,
                                                                 part: state.partIndex, partTitle: part.title))]
    }

    /// `loop` is the A–B loop on; from outside it, to its start, as entering the part goes
    /// (a jump while playing counts in again).
    static func armLoop(_ loop: ABLoop, _ state: inout PlayerState) -> [Effect] {
        state.loop = .ab(loop)
        var effects = loopEffects(&state)
        if !(loop.a..<loop.b).contains(TransportRules.here(state)) {
            switch state.transport {
            case .playing, .countingDown: effects += TransportRules.start(from: loop.a, origin: .playing, &state)
            case .paused, .stopped: state.position = loop.a
            }
        }
        return effects
    }

    /// The loop region and the follow-on part that the audio side needs for the current state;
    /// with a speed ramp, the speed of its first pass (or the part's own when the loop goes).
    static func loopEffects(_ state: inout PlayerState) -> [Effect] {
        guard let part = state.part else { return [] }
        var effects: [Effect] = []
        if let ramp = part.ramp {
            effects = SpeedVolumeRules.speedEffects(state.loopIsOn ? ramp.from : part.speed, &state)
        }
        let repeatCountdown = state.settings.countdownBeforeRepeat ? state.countInCount : 0
        let pause = loopPauseFrames(state)
        let passes = state.settings.loopPasses
        let region: LoopRegion?
        switch state.loop {
        case .part: region = LoopRegion(range: 0..<part.length, countdownBeforeRepeat: repeatCountdown,
                                        pauseBeforeRepeat: pause, passes: passes,
                                        countInBeforeRepeat: BeatRules.repeatCountIn(from: 0, state), ramp: part.ramp)
        case .ab(let l):
            let lead = leadInFrames(l, state)
            region = LoopRegion(range: l.a..<l.b, countdownBeforeRepeat: repeatCountdown,
                                pauseBeforeRepeat: pause, passes: passes,
                                countInBeforeRepeat: BeatRules.repeatCountIn(from: l.a - lead, state),
                                leadIn: lead, ramp: part.ramp)
        case .off, .markedA: region = nil
        }
        // The audio side counts passes from 1 whenever it is given a loop.
        state.loopPass = 1
        var next: PartAudio?
        if region == nil, state.settings.atPartEnd == .next || ClassRules.continuesIntoNextPart(state),
           let routine = state.routine,
           state.partIndex + 1 < routine.parts.count {
            next = routine.parts[state.partIndex + 1].playable
        }
        return effects + [.audio(.setLoop(region), epoch: state.epoch), .audio(.setNext(next), epoch: state.epoch)]
    }

    /// Where a repeat of the loop starts: its start, or the lead-in before A.
    static func repeatStart(_ state: PlayerState) -> FramePosition {
        guard case .ab(let loop) = state.loop else { return loopStart(state) }
        return loop.a - leadInFrames(loop, state)
    }

    /// The part's lead-in before `loop`'s A in frames: never before the part's start.
    static func leadInFrames(_ loop: ABLoop, _ state: PlayerState) -> FramePosition {
        guard let part = state.part, let leadIn = part.leadIn else { return 0 }
        return min(loop.a, leadIn.frames(grid: part.grid, sampleRate: state.sampleRate))
    }

    /// A loop's passes count from 1 again (its last pass ended, a stop): a ramp starts over
    /// at its first speed.
    static func passesRestarted(_ state: inout PlayerState) -> [Effect] {
        state.loopPass = 1
        guard state.loopIsOn, let ramp = state.part?.ramp else { return [] }
        return SpeedVolumeRules.speedEffects(ramp.from, &state)
    }

    /// A loop wrapped: the next pass, at its speed when a ramp climbs (the audio side changed
    /// it on the seam).
    static func passStarted(_ state: inout PlayerState) {
        state.loopPass += 1
        if state.loopIsOn, let ramp = state.part?.ramp { state.speedPercent = ramp.speed(ofPass: state.loopPass) }
    }

    /// Where "back to the start" goes: A inside an A–B loop, else the part's first frame.
    static func loopStart(_ state: PlayerState) -> FramePosition {
        if case .ab(let loop) = state.loop { return loop.a }
        return 0
    }

    /// The loop pause in frames. Parts have no beat grid yet; when they do, a pause in beats
    /// converts here with the part's tempo, and the audio side keeps counting in frames.
    static func loopPauseFrames(_ state: PlayerState) -> FramePosition {
        FramePosition(state.settings.loopPause) * state.sampleRate
    }
}
