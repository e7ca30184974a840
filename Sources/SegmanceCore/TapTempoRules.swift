/// *Tap tempo*: four or more taps of LOOP (or the encoder's push) on the beat give the part
/// its tempo and its "1": the first tap, at the frame heard at its press, as a mark is placed.
/// Kept with the part as a detected grid is (count-ins, snapping, eights); a later session
/// replaces it.
public enum TapTempoRules {
    /// Taps needed for a tempo.
    static let minimumTaps = 4
    /// A tap this long after the one before (or not after it: a seek, a loop's wrap) starts
    /// the taps again: slower than the slowest tempo a manifest may give (20 BPM).
    static let restartSeconds: Int64 = 3
    /// The tempi taps may give, in beats a minute (a manifest's).
    static let tempoRange: ClosedRange<Double> = 20...400

    /// The entry pushed: its page, no taps yet.
    static func open(_ state: inout PlayerState) -> [Effect] {
        guard state.part != nil else {
            NoticeRules.hint("No part", &state)
            return []
        }
        state.menu = Menu(page: .tapping)
        return []
    }

    /// A tap, at the frame heard at its press; the music must be playing.
    static func tap(_ state: inout PlayerState) -> [Effect] {
        guard var menu = state.menu, menu.page == .tapping else { return [] }
        guard case .playing = state.transport else {
            NoticeRules.hint("Play, then tap", &state)
            return []
        }
        let at = TransportRules.here(state)
        if let last = menu.taps.last, at <= last || at - last > restartSeconds * state.sampleRate {
            menu.taps = []
        }
        menu.taps.append(at)
        state.menu = menu
        return []
    }

    /// The long push: back to the menu; with enough taps the part has their grid, kept.
    static func leave(_ state: inout PlayerState) -> [Effect] {
        let taps = state.menu?.taps ?? []
        state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .tapTempo)!)
        guard let r = state.routineIndex, let part = state.part else { return [] }
        guard let grid = grid(taps, sampleRate: state.sampleRate) else {
            NoticeRules.hint(taps.count < minimumTaps ? "Tap 4 or more" : "No steady tempo", &state)
            return []
        }
        state.routines[r].parts[state.partIndex].grid = grid
        let effects: [Effect] = [.persist(.grid(routine: state.routines[r].title, part: state.partIndex,
                                                partTitle: part.title, grid: grid))]
        // A count before each repeat counts on the new grid.
        let countsAgain = state.loopIsOn && state.settings.countdownBeforeRepeat
        return countsAgain ? LoopRules.loopEffects(&state) + effects : effects
    }

    /// The grid of `taps`: the beat is the least-squares slope of the taps over their count
    /// (so one early tap does not skew it), the "1" the first tap. Nil for fewer than
    /// `minimumTaps` or a tempo outside `tempoRange`.
    public static func grid(_ taps: [FramePosition], sampleRate: Int64) -> BeatGrid? {
        guard taps.count >= minimumTaps else { return nil }
        let n = Double(taps.count)
        let meanIndex = (n - 1) / 2
        let meanFrame = taps.reduce(0.0) { $0 + Double($1) } / n
        var covariance = 0.0, variance = 0.0
        for (i, frame) in taps.enumerated() {
            covariance += (Double(i) - meanIndex) * (Double(frame) - meanFrame)
            variance += (Double(i) - meanIndex) * (Double(i) - meanIndex)
        }
        let beatFrames = covariance / variance
        guard beatFrames.isFinite, beatFrames > 0,
              tempoRange.contains(60 * Double(sampleRate) / beatFrames) else { return nil }
        return BeatGrid(beatFrames: beatFrames, one: taps[0], origin: .tapped)
    }
}
