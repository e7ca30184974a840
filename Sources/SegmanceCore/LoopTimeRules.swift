/// The A–B loop's times: shown for a moment when A or B is marked, and nudged on the
/// menu's *A-B loop* page — A or B by a beat on a part with a beat, else by `nudgeMilliseconds`
/// — each detent sent to the audio side as the new loop, heard on the next pass.
public enum LoopTimeRules {
    /// How long the times show after a mark.
    public static let shownDuration: Int64 = 2_000_000_000
    /// A detent's nudge on a part with no beat.
    public static let nudgeMilliseconds: Int64 = 50

    /// A or B was marked (or the loop cleared): its times show for a moment, or go.
    static func marked(_ state: inout PlayerState) {
        switch state.loop {
        case .markedA, .ab: state.loopTimesShownUntil = state.now + shownDuration
        case .off, .part: state.loopTimesShownUntil = nil
        }
    }

    /// The entry's push: the page with both times, the encoder on A. With no A–B loop, a hint.
    static func open(_ state: inout PlayerState) -> [Effect] {
        guard case .ab = state.loop else {
            NoticeRules.hint("No A-B loop", &state)
            return []
        }
        state.menu = Menu(page: .loopEnds(.a), cursor: 0)
        return []
    }

    /// A push on A goes on to B; a push on B, or a long push, leaves, and the loop is saved.
    static func select(_ end: Menu.LoopEnd, long: Bool, _ state: inout PlayerState) -> [Effect] {
        if end == .a && !long {
            state.menu = Menu(page: .loopEnds(.b), cursor: 0)
            return []
        }
        state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .abLoop)!)
        guard case .ab(let loop) = state.loop else { return [] }
        return LoopRules.setSavedLoop(loop, &state)
    }

    /// Detents on A or B: moved, never closer than `Rules.minimumLoopMilliseconds` to the
    /// other end nor out of the part; the audio side gets the new loop at once.
    static func nudge(_ end: Menu.LoopEnd, by detents: Int, _ state: inout PlayerState) -> [Effect] {
        guard case .ab(var loop) = state.loop, let part = state.part, detents != 0 else { return [] }
        let minimum = Rules.minimumLoopMilliseconds * state.sampleRate / 1000
        switch end {
        case .a: loop.a = min(max(step(loop.a, detents, state), 0), loop.b - minimum)
        case .b: loop.b = min(max(step(loop.b, detents, state), loop.a + minimum), part.length)
        }
        guard case .ab(let old) = state.loop, loop != old else { return [] }
        state.loop = .ab(loop)
        switch state.transport {
        case .stopped, .paused:
            // Waiting at the loop's start (where a stop puts it) or now outside it: at the new A.
            if state.position == old.a || !(loop.a..<loop.b).contains(state.position) { state.position = loop.a }
        case .playing, .countingDown:
            break
        }
        return LoopRules.loopEffects(&state)
    }

    /// `frame` moved by `detents` beats (to the beat that many from the nearest) on a part
    /// with a beat, else by that many nudges.
    static func step(_ frame: FramePosition, _ detents: Int, _ state: PlayerState) -> FramePosition {
        if let grid = state.part?.grid {
            return grid.frame(ofBeat: grid.nearestBeat(to: frame) + Int64(detents))
        }
        return frame + Int64(detents) * nudgeMilliseconds * state.sampleRate / 1000
    }
}
