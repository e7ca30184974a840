/// Play, pause, stop, the countdown, restarting a part, seeking and jumping to a move's cue:
/// where playback is and whether it runs.
enum TransportRules {
    static func togglePlay(_ state: inout PlayerState) -> [Effect] {
        switch state.transport {
        case .stopped, .paused:
            let origin: Countdown.Origin = state.transport == .paused ? .paused : .stopped
            return start(from: state.position, origin: origin, &state)
        case .countingDown(let countdown):
            // PLAY during a countdown cancels it: there is only ever one.
            state.transport = countdown.origin == .stopped ? .stopped : .paused
            let stop = Effect.audio(.stop, epoch: bumpEpoch(&state))
            return [stop] + LoopRules.passesRestarted(&state)
        case .playing:
            state.transport = .paused
            return [.audio(.pause, epoch: bumpEpoch(&state))] + resumeEffect(state)
        }
    }

    /// Playing: paused, as PLAY would. Counting down: the countdown is cancelled as PLAY
    /// would, back to where it began. The place is kept either way.
    static func shutDown(_ state: inout PlayerState) -> [Effect] {
        if state.volumeShownUntil != nil {
            // A volume gesture still under way is kept too.
            state.volumeShownUntil = nil
            return [.persist(.settings(state.settings))] + shutDown(&state)
        }
        switch state.transport {
        case .playing, .countingDown:
            let effects = togglePlay(&state)
            let persisted = effects.contains { if case .persist = $0 { true } else { false } }
            return persisted ? effects : effects + resumeEffect(state)
        case .stopped, .paused:
            return resumeEffect(state)
        }
    }

    /// Starts playback at `position`, through the countdown when one is set.
    static func start(from position: FramePosition, origin: Countdown.Origin,
                      _ state: inout PlayerState) -> [Effect] {
        state.position = position
        state.lastStart = position
        if let countIn = BeatRules.countIn(to: position, state) {
            state.transport = .countingDown(Countdown(remaining: countIn.beats, origin: origin,
                                                      firstCount: countIn.firstCount, total: countIn.beats))
            return [.audio(.countIn(from: position, countIn), epoch: bumpEpoch(&state))]
        }
        let seconds = state.countInCount
        state.transport = seconds > 0
            ? .countingDown(Countdown(remaining: seconds, origin: origin)) : .playing
        return [.audio(.play(from: position, countdown: seconds), epoch: bumpEpoch(&state))]
    }

    /// *Again* (PREV's double press): back to where the last play started, counted in as that
    /// start was (a place outside an A–B loop on now goes to A). Nothing played yet: a hint.
    static func again(_ state: inout PlayerState) -> [Effect] {
        guard state.part != nil, var target = state.lastStart else {
            NoticeRules.hint("Nothing to repeat", &state)
            return []
        }
        if case .ab(let loop) = state.loop, !(loop.a..<loop.b).contains(target) { target = loop.a }
        return start(from: target, origin: origin(state.transport), &state)
    }

    /// Back to the start of the part (A inside an A–B loop); a jump while playing counts in again.
    static func restartPart(_ state: inout PlayerState) -> [Effect] {
        let target = LoopRules.loopStart(state)
        switch state.transport {
        case .playing, .countingDown:
            return start(from: target, origin: .playing, &state)
        case .paused, .stopped:
            state.position = target
            return []
        }
    }

    static func seek(byDetents detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard let part = state.part, detents != 0 else { return [] }
        var low: FramePosition = 0
        var high = max(0, part.length - 1)
        if case .ab(let loop) = state.loop {
            // Seeking cannot leave an active A–B region.
            low = loop.a
            high = loop.b - 1
        }
        // Relative to what was heard at the detent.
        let from = here(state)
        let target: FramePosition
        if let grid = part.grid, state.settings.turnBy != .seconds {
            // By beats or eights: to the beat (or "1") that many away from the nearest.
            let every: Int64 = state.settings.turnBy == .eights ? BeatGrid.beatsPerEight : 1
            let beat = grid.nearestBeat(to: from, every: every) + Int64(detents) * every
            target = min(max(grid.frame(ofBeat: beat), low), high)
        } else {
            let step = Int64(detents) * Rules.seekSecondsPerDetent * state.sampleRate
            target = min(max(from + step, low), high)
        }
        guard target != from else { return [] }
        state.position = target
        switch state.transport {
        case .playing, .countingDown:
            return [.audio(.seek(to: target), epoch: bumpEpoch(&state))]
        case .paused, .stopped:
            return []
        }
    }

    /// The encoder push on a move in the moves view: play from its cue, through the
    /// count-in when one is set (as any jump while playing). Seeking cannot leave an active
    /// A–B region, so a cue outside it is refused with a hint.
    static func jumpToMove(_ state: inout PlayerState) -> [Effect] {
        guard let part = state.part, let index = state.shownMoveIndex else { return [] }
        guard let cue = part.moves[index].cue, cue < part.length else {
            NoticeRules.hint("No cue", &state)
            return []
        }
        if case .ab(let loop) = state.loop, !(loop.a..<loop.b).contains(cue) {
            NoticeRules.hint("Cue outside loop", &state)
            return []
        }
        state.moveCursor = nil
        return start(from: cue, origin: origin(state.transport), &state)
    }


    /// What a countdown started now returns to if cancelled: playing, paused or stopped.
    static func origin(_ transport: Transport) -> Countdown.Origin {
        switch transport {
        case .playing, .countingDown: .playing
        case .paused: .paused
        case .stopped: .stopped
        }
    }

    /// A stop by the performer: with *Stop fade* set, the music fades out over it; else the short ramp.
    static func stopCommand(_ state: PlayerState) -> AudioCommand {
        let fade = FramePosition(state.settings.stopFade) * state.sampleRate / 1000
        return fade > 0 ? .stopFading(fade) : .stop
    }

    /// Where a control that acts "here" acts: the frame heard at its instant, else the
    /// position last known.
    static func here(_ state: PlayerState) -> FramePosition { state.heard ?? state.position }

    /// Where playback is now, for the library.
    static func resumeEffect(_ state: PlayerState) -> [Effect] {
        guard let routine = state.routine, let part = state.part else { return [] }
        return [.persist(.resume(ResumePoint(routine: routine.title, part: state.partIndex,
                                             partTitle: part.title, position: state.position)))]
    }

    static func bumpEpoch(_ state: inout PlayerState) -> UInt32 {
        state.epoch &+= 1
        return state.epoch
    }
}
