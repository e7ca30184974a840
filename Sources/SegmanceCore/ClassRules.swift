/// A class set (`ClassSet`) under way: its tracks in order, a routine track part after part; at
/// a track's end the next is loaded at once and starts after the gap — its silence (the next
/// title spoken in it when the set announces), then the count-in in force, so that its first
/// sample comes `gap` seconds after the last one's. NEXT and PREV go from track to track.
public enum ClassRules {
    /// The menu's *Class set* pushed: the list of sets, or a hint when there is none.
    static func openList(_ state: inout PlayerState) -> [Effect] {
        guard !state.classSets.isEmpty else {
            NoticeRules.hint("No class sets", &state)
            return []
        }
        state.menu = Menu(page: .choosing(.classSet), cursor: state.classRun?.set ?? 0)
        return []
    }

    /// A push on a set of the list: it starts from its first track; a long push goes back.
    static func choose(long: Bool, _ state: inout PlayerState) -> [Effect] {
        guard let menu = state.menu else { return [] }
        if long || !state.classSets.indices.contains(menu.cursor) {
            state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .classSet)!)
            return []
        }
        state.menu = nil
        return start(set: menu.cursor, &state)
    }

    /// Set `set` from its first track, counted in at once.
    static func start(set: Int, _ state: inout PlayerState) -> [Effect] {
        guard state.classSets.indices.contains(set), !state.classSets[set].tracks.isEmpty else { return [] }
        state.classRun = ClassRun(set: set, track: 0)
        return play(track: 0, gap: nil, &state)
    }

    /// *New class*: a set of every routine of the list, in its order, kept in the library.
    static func newClass(_ state: inout PlayerState) -> [Effect] {
        guard !state.routines.isEmpty else {
            NoticeRules.hint("No routines", &state)
            return []
        }
        let names = Set(state.classSets.map(\.name))
        var n = state.classSets.count + 1
        while names.contains("Class \(n)") { n += 1 }
        let set = ClassSet(name: "Class \(n)", tracks: state.routines.map { ClassTrack(routine: $0.title) })
        state.classSets.append(set)
        NoticeRules.hint("\(set.name) made", &state)
        return [.persist(.classSet(set))]
    }

    /// The track a class plays now, when one is under way and `track` is one of its own.
    static func track(_ state: PlayerState) -> ClassTrack? {
        guard let run = state.classRun, state.classSets.indices.contains(run.set) else { return nil }
        let tracks = state.classSets[run.set].tracks
        return tracks.indices.contains(run.track) ? tracks[run.track] : nil
    }

    /// Whether the part playing goes on into the routine's next part: a routine track.
    static func continuesIntoNextPart(_ state: PlayerState) -> Bool {
        guard let track = track(state), track.part == nil, state.routine?.title == track.routine else { return false }
        return true
    }

    /// The audio ended by itself: at a track's end the next one follows after the gap; after
    /// the last the class is over. Nil when no class track ended.
    static func partEnded(_ state: inout PlayerState) -> [Effect]? {
        guard let run = state.classRun, track(state) != nil else { return nil }
        let set = state.classSets[run.set]
        guard run.track + 1 < set.tracks.count else {
            state.classRun = nil
            NoticeRules.arrived(Notice(.info, ["Class done", set.name]), &state)
            return nil
        }
        state.classRun?.track = run.track + 1
        return play(track: run.track + 1, gap: set.gap, &state)
    }

    /// NEXT in a class: the next track at once, counted in (the last says so).
    static func next(_ state: inout PlayerState) -> [Effect] {
        guard let run = state.classRun else { return [] }
        guard run.track + 1 < state.classSets[run.set].tracks.count else {
            NoticeRules.hint("Last track", &state)
            return []
        }
        state.classRun?.track = run.track + 1
        return play(track: run.track + 1, gap: nil, &state)
    }

    /// PREV in a class: the track before, counted in (the first starts again).
    static func previous(_ state: inout PlayerState) -> [Effect] {
        guard let run = state.classRun else { return [] }
        let track = max(0, run.track - 1)
        state.classRun?.track = track
        return play(track: track, gap: nil, &state)
    }

    /// The audio started: the gap is over.
    static func started(_ state: inout PlayerState) {
        if state.classRun?.gapUntil != nil { state.classRun?.gapUntil = nil }
    }

    /// Loads track `index` of the set under way and starts it: after the gap of `gap` seconds
    /// (its silence, then the count-in), or at once with the count-in when nil. A track whose
    /// routine or part is not in the library is passed over.
    static func play(track index: Int, gap: Int?, _ state: inout PlayerState) -> [Effect] {
        guard let run = state.classRun else { return [] }
        let tracks = state.classSets[run.set].tracks
        guard tracks.indices.contains(index) else { return [] }
        let track = tracks[index]
        guard let r = state.routines.firstIndex(where: { $0.title == track.routine }),
              state.routines[r].parts.indices.contains(track.part ?? 0) else {
            NoticeRules.arrived(Notice(.problem, ["Not in library:", track.routine]), &state)
            state.classRun?.track = index
            return index + 1 < tracks.count ? play(track: index + 1, gap: gap, &state) : []
        }
        state.routineIndex = r
        var effects = NavigationRules.loadPart(track.part ?? 0, &state)
        state.titleShownUntil = state.now + Rules.titleDuration
        guard let gap else {
            return effects + TransportRules.start(from: state.position, origin: .stopped, &state)
                + TransportRules.resumeEffect(state)
        }
        // The count-in ends the gap: the silence is what it leaves.
        let countIn = BeatRules.countIn(to: state.position, state)
        let seconds = countIn == nil ? state.countInCount : 0
        let counting = countIn.map { FramePosition((Double($0.beats) * $0.beatFrames).rounded()) - $0.lead }
            ?? FramePosition(seconds) * state.sampleRate
        let silence = max(0, FramePosition(gap) * state.sampleRate - counting)
        state.classRun?.gapUntil = state.now + Int64(gap) * 1_000_000_000
        let total = countIn?.beats ?? seconds
        state.transport = total > 0
            ? .countingDown(Countdown(remaining: total, origin: .stopped, firstCount: countIn?.firstCount,
                                      total: total))
            : .playing
        let epoch = TransportRules.bumpEpoch(&state)
        effects.append(.audio(.playAfter(silence: silence, from: state.position, countdown: seconds, countIn: countIn),
                              epoch: epoch))
        if state.classSets[run.set].announce, silence > 0 {
            effects.append(.audio(.announce("Next: " + track.routine, within: silence), epoch: epoch))
        }
        return effects + TransportRules.resumeEffect(state)
    }
}
