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

    /// The loop region and the follow-on part that the audio side needs for the current state.
    static func loopEffects(_ state: inout PlayerState) -> [Effect] {
        guard let part = state.part else { return [] }
        let repeatCountdown = state.settings.countdownBeforeRepeat ? state.countInCount : 0
        let pause = loopPauseFrames(state)
        let passes = state.settings.loopPasses
        let region: LoopRegion?
        switch state.loop {
        case .part: region = LoopRegion(range: 0..<part.length, countdownBeforeRepeat: repeatCountdown,
                                        pauseBeforeRepeat: pause, passes: passes,
                                        countInBeforeRepeat: BeatRules.repeatCountIn(from: 0, state))
        case .ab(let l): region = LoopRegion(range: l.a..<l.b, countdownBeforeRepeat: repeatCountdown,
                                             pauseBeforeRepeat: pause, passes: passes,
                                             countInBeforeRepeat: BeatRules.repeatCountIn(from: l.a, state))
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
        return [.audio(.setLoop(region), epoch: state.epoch), .audio(.setNext(next), epoch: state.epoch)]
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
