/// The beat grid at work: the count-in in beats, loop marks snapped to a beat, "One here".
enum BeatRules {
    /// The count-in in beats for a start at `position`: nil when the count-in is in seconds
    /// (or none), or the part has no beat grid. The music's next beat (the "1" when the
    /// start is on one) falls one beat after the last count.
    static func countIn(to position: FramePosition, _ state: PlayerState) -> CountIn? {
        let beats = state.countdownBeats
        guard beats > 0, let grid = state.part?.grid else { return nil }
        let target = grid.beat(atOrAfter: position, sampleRate: state.sampleRate)
        let lead = max(0, grid.frame(ofBeat: target) - position)
        return CountIn(beats: beats, beatFrames: outputFrames(grid.beatFrames, state),
                       lead: FramePosition(outputFrames(Double(lead), state).rounded()),
                       firstCount: grid.count(ofBeat: target - Int64(beats)))
    }

    /// The count-in before each repeat of a loop from `start`, when *Count again* is on.
    static func repeatCountIn(from start: FramePosition, _ state: PlayerState) -> CountIn? {
        state.settings.countdownBeforeRepeat ? countIn(to: start, state) : nil
    }

    /// `source` frames of the part as output frames at the speed playing: source × 100 /
    /// speed percent. The count-in's beat and lead are scaled here, and only here.
    static func outputFrames(_ source: Double, _ state: PlayerState) -> Double {
        source * 100 / Double(speedPercent(state))
    }

    /// The playback speed in percent (100 = as recorded): the part's speed as set.
    static func speedPercent(_ state: PlayerState) -> Int { max(1, state.speedPercent) }

    /// Where a loop mark at `position` goes: the nearest beat or "1" (per `loopSnap`) on a
    /// part with a beat grid, inside the part; `position` itself otherwise.
    static func snapped(_ position: FramePosition, _ state: PlayerState) -> FramePosition {
        guard let part = state.part, let grid = part.grid, state.settings.loopSnap != .off else { return position }
        let every: Int64 = state.settings.loopSnap == .eight ? BeatGrid.beatsPerEight : 1
        var beat = grid.nearestBeat(to: position, every: every)
        if grid.frame(ofBeat: beat) < 0 { beat += every }
        if grid.frame(ofBeat: beat) > part.length { beat -= every }
        let frame = grid.frame(ofBeat: beat)
        return (0...part.length).contains(frame) ? frame : position
    }

    /// "One here": the beat nearest where the music is becomes a "1" of the part, kept in
    /// the library. A part with no beat grid says so.
    static func setOne(_ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part, let grid = part.grid else {
            NoticeRules.hint("No beat grid", &state)
            return []
        }
        let moved = grid.withOne(atBeat: grid.nearestBeat(to: state.position))
        state.routines[r].parts[state.partIndex].grid = moved
        let effects: [Effect] = [.persist(.grid(routine: state.routines[r].title, part: state.partIndex,
                                                partTitle: part.title, grid: moved))]
        // A count before each repeat counts to the new "1".
        let countsAgain = state.loopIsOn && state.settings.countdownBeforeRepeat
        return countsAgain ? LoopRules.loopEffects(&state) + effects : effects
    }
}
