/// What the audio side reports (`AudioReport`): the state follows what really sounds.
enum AudioReportRules {
    static func apply(_ report: AudioReport, _ state: inout PlayerState) -> [Effect] {
        // Reports sent before our last timeline command took effect describe a past state.
        guard report.epoch == state.epoch else { return [] }
        switch report.kind {
        case .countdownTick(let remaining):
            let origin: Countdown.Origin
            var counting: Countdown?
            switch state.transport {
            case .countingDown(let c):
                origin = c.origin
                counting = c
            case .playing: origin = .playing // the countdown before a repeat
            case .paused: origin = .paused
            case .stopped: origin = .stopped
            }
            // A count before a repeat begins here: in beats when the loop counts beats.
            let beats = counting == nil && state.settings.countdownBeforeRepeat
                ? BeatRules.repeatCountIn(from: LoopRules.loopStart(state), state) : nil
            let firstCount = counting?.firstCount ?? beats?.firstCount
            state.transport = .countingDown(Countdown(
                remaining: remaining + 1, origin: origin, firstCount: firstCount,
                total: firstCount == nil ? nil : counting?.total ?? beats?.beats))
            return []
        case .started(let at):
            ClassRules.started(&state)
            state.transport = .playing
            state.position = at
            return []
        case .position(let position):
            if case .playing = state.transport, position > state.position {
                state.unsavedPlay += position - state.position
            }
            state.position = position
            // A power cut loses at most this much of the place (see `resumeSaveSeconds`).
            let due = state.unsavedPlay >= Rules.resumeSaveSeconds * state.sampleRate
            return due ? TransportRules.resumeEffect(state) : []
        case .looped:
            state.position = LoopRules.repeatStart(state)
            LoopRules.passStarted(&state)
            return []
        case .loopFinished:
            // The last pass ended: stopped at the loop's start, ready to go again.
            state.transport = .stopped
            state.position = LoopRules.loopStart(state)
            return LoopRules.passesRestarted(&state) + TransportRules.resumeEffect(state)
        case .partEnded:
            if let next = ClassRules.partEnded(&state) { return next }
            // The symbol follows the real state: audio ended by itself, so we are stopped.
            state.transport = .stopped
            state.position = LoopRules.loopStart(state)
            return TransportRules.resumeEffect(state)
        case .advanced:
            guard let routine = state.routine, state.partIndex + 1 < routine.parts.count else { return [] }
            state.partIndex += 1
            let part = routine.parts[state.partIndex]
            state.loop = part.savedLoop.map(LoopMode.ab) ?? .off
            state.position = 0
            state.moveCursor = nil
            state.titleShownUntil = state.now + Rules.titleDuration
            return SpeedVolumeRules.speedEffects(part, &state) + LoopRules.loopEffects(&state)
                + TransportRules.resumeEffect(state)
        }
    }
}
