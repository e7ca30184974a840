/// The rules of making on the box (`Edit`): parts split, joined, named and deleted, loops
/// named and chosen, moves added and deleted. Every change is kept in the library as the
/// teacher's layer (`Persist.parts`), apart from what the stick gave.
public enum EditRules {
    /// Neither piece of a split is shorter than this (milliseconds).
    public static let minimumPieceMilliseconds: Int64 = 500

    static func apply(_ edit: Edit, _ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else {
            NoticeRules.hint("No routines", &state)
            return []
        }
        let i = state.partIndex
        switch edit {
        case .split:
            return split(&state)
        case .join:
            guard i + 1 < state.routines[r].parts.count else {
                NoticeRules.hint("Last part", &state)
                return []
            }
            guard let joined = joined(part, state.routines[r].parts[i + 1]) else {
                NoticeRules.hint("Not one cut", &state)
                return []
            }
            state.routines[r].parts.replaceSubrange(i...(i + 1), with: [joined])
            return reenter(i, at: state.position, &state) + saved(&state) + TransportRules.resumeEffect(state)
        case .rename(let name):
            state.routines[r].parts[i].title = name
            return saved(&state) + TransportRules.resumeEffect(state)
        case .deletePart:
            guard state.routines[r].parts.count > 1 else {
                NoticeRules.hint("Only part", &state)
                return []
            }
            state.routines[r].parts.remove(at: i)
            let effects = saved(&state)
            return effects + NavigationRules.enterPart(min(i, state.routines[r].parts.count - 1), &state)
        case .goToPart(let n):
            guard state.routines[r].parts.indices.contains(n) else { return [] }
            return NavigationRules.enterPart(n, &state)
        case .nameLoop(let name):
            guard case .ab(let loop) = state.loop else {
                NoticeRules.hint("No A-B loop", &state)
                return []
            }
            let named = NamedLoop(name: name, loop: loop)
            if let same = part.loops.firstIndex(where: { $0.name == name }) {
                state.routines[r].parts[i].loops[same] = named
            } else {
                state.routines[r].parts[i].loops.append(named)
            }
            NoticeRules.hint("Loop \(name)", &state)
            return saved(&state)
        case .chooseLoop(let k):
            guard part.loops.indices.contains(k) else {
                NoticeRules.hint("No named loops", &state)
                return []
            }
            NoticeRules.hint("Loop \(part.loops[k].name)", &state)
            return LoopRules.armLoop(part.loops[k].loop, &state) + LoopRules.setSavedLoop(part.loops[k].loop, &state)
        case .nextLoop:
            let now = part.loops.firstIndex { $0.loop == part.savedLoop }
            return apply(.chooseLoop(now.map { ($0 + 1) % part.loops.count } ?? 0), &state)
        case .addMove(let type, let at):
            let cue = min(max(at ?? TransportRules.here(state), 0), max(0, part.length - 1))
            let index = part.moves.firstIndex { ($0.cue ?? -1) > cue } ?? part.moves.count
            state.routines[r].parts[i].moves.insert(Move(type: MoveType(type), name: type, cue: cue), at: index)
            NoticeRules.hint("\(type) added", &state)
            return saved(&state)
        case .deleteMove:
            guard let m = state.shownMoveIndex else {
                NoticeRules.hint("No moves", &state)
                return []
            }
            NoticeRules.hint("\(part.moves[m].name) deleted", &state)
            state.routines[r].parts[i].moves.remove(at: m)
            state.moveCursor = nil
            return saved(&state)
        case .newRoutine:
            return newRoutine(&state)
        }
    }

    /// The part splits at the frame heard, snapped as a loop mark is; a piece shorter than
    /// `minimumPieceMilliseconds` is refused. The music plays on in the second piece.
    private static func split(_ state: inout PlayerState) -> [Effect] {
        guard let r = state.routineIndex, let part = state.part else { return [] }
        let at = BeatRules.snapped(TransportRules.here(state), state)
        let minimum = minimumPieceMilliseconds * state.sampleRate / 1000
        guard at >= minimum, part.length - at >= minimum else {
            NoticeRules.hint(at < minimum ? "Too near start" : "Too near end", &state)
            return []
        }
        let titles = Set(state.routines[r].parts.map(\.title))
        let (left, right) = pieces(of: part, at: at, secondTitle: freeTitle(part.title, among: titles))
        let i = state.partIndex
        state.routines[r].parts.replaceSubrange(i...i, with: [left, right])
        // Where the audio side had got to, in the second piece.
        return reenter(i + 1, at: state.position - at, &state) + saved(&state) + TransportRules.resumeEffect(state)
    }

    /// `part` cut in two at the part-relative frame `at`: what lies before it stays in the
    /// first piece, what lies after goes to the second, its cues, loops and beat rebased
    /// there. A loop across the cut stays with its A, ending at the cut.
    public static func pieces(of part: Part, at: FramePosition, secondTitle: String) -> (Part, Part) {
        let start = part.range?.lowerBound ?? 0
        var left = part, right = part
        left.range = start..<(start + at)
        left.length = at
        right.range = (start + at)..<(start + part.length)
        right.length = part.length - at
        right.title = secondTitle
        right.short = nil
        left.moves = part.moves.filter { ($0.cue ?? 0) < at }
        right.moves = part.moves.compactMap { move in
            guard let cue = move.cue, cue >= at else { return nil }
            var moved = move
            moved.cue = cue - at
            return moved
        }
        func side(_ loop: ABLoop?) -> (ABLoop?, ABLoop?) {
            guard let loop else { return (nil, nil) }
            if loop.a >= at { return (nil, ABLoop(a: loop.a - at, b: loop.b - at)) }
            return (ABLoop(a: loop.a, b: min(loop.b, at)), nil)
        }
        (left.savedLoop, right.savedLoop) = side(part.savedLoop)
        (left.stickLoop, right.stickLoop) = side(part.stickLoop)
        left.loops = []
        right.loops = []
        for named in part.loops {
            let (l, r) = side(named.loop)
            if let l { left.loops.append(NamedLoop(name: named.name, loop: l)) }
            if let r { right.loops.append(NamedLoop(name: named.name, loop: r)) }
        }
        right.grid = part.grid.map { BeatGrid(beatFrames: $0.beatFrames, one: $0.one - at, origin: $0.origin) }
        // The fade at the end stays at the end.
        left.fadeOut = 0
        right.fadeOut = min(part.fadeOut, right.length)
        return (left, right)
    }

    /// `first` and `second` as one part, when they are adjacent cuts of the same audio: the
    /// first's title, loop, beat and speed; the second's cues and loops rebased after the first's.
    public static func joined(_ first: Part, _ second: Part) -> Part? {
        guard first.audio == second.audio, let secondCut = second.range,
              (first.range?.lowerBound ?? 0) + first.length == secondCut.lowerBound else { return nil }
        let shift = first.length
        func moved(_ loop: ABLoop?) -> ABLoop? { loop.map { ABLoop(a: $0.a + shift, b: $0.b + shift) } }
        var part = first
        part.range = (first.range?.lowerBound ?? 0)..<secondCut.upperBound
        part.length = first.length + second.length
        part.moves = first.moves + second.moves.map { move in
            var m = move
            m.cue = move.cue.map { $0 + shift }
            return m
        }
        part.savedLoop = first.savedLoop ?? moved(second.savedLoop)
        part.stickLoop = first.stickLoop ?? moved(second.stickLoop)
        part.loops = first.loops + second.loops.map { NamedLoop(name: $0.name, loop: moved($0.loop)!) }
        part.grid = first.grid
            ?? second.grid.map { BeatGrid(beatFrames: $0.beatFrames, one: $0.one + shift, origin: $0.origin) }
        part.fadeOut = second.fadeOut
        return part
    }

    /// "Groove 2" for the second piece of "Groove" (or the next number free in the routine).
    static func freeTitle(_ title: String, among titles: Set<String>) -> String {
        var n = 2
        while titles.contains("\(title) \(n)") { n += 1 }
        return "\(title) \(n)"
    }

    /// Part `index` is loaded again after its routine changed, at `position` (in its loop, when
    /// one is armed); playing, it plays on from there at once, with no count-in.
    private static func reenter(_ index: Int, at position: FramePosition, _ state: inout PlayerState) -> [Effect] {
        let running: Bool
        switch state.transport {
        case .playing, .countingDown: running = true
        case .paused, .stopped: running = false
        }
        var effects = NavigationRules.loadPart(index, &state)
        guard let part = state.part else { return effects }
        var p = min(max(position, 0), max(0, part.length - 1))
        if case .ab(let loop) = state.loop, !(loop.a..<loop.b).contains(p) { p = loop.a }
        state.position = p
        if running {
            state.transport = .playing
            effects.append(.audio(.play(from: p, countdown: 0), epoch: TransportRules.bumpEpoch(&state)))
        }
        return effects
    }

    /// The routine's parts as made on the box, for the library, and where playback is.
    private static func saved(_ state: inout PlayerState) -> [Effect] {
        guard let routine = state.routine else { return [] }
        return [.persist(.parts(routine: routine.title, parts: routine.parts))]
    }

    /// A new routine of the current one's songs, one whole part per song, titled "New
    /// routine" (or the next number free). Its parts are the library's to make (it knows the
    /// songs' lengths): it comes back among the routines.
    private static func newRoutine(_ state: inout PlayerState) -> [Effect] {
        guard let routine = state.routine else { return [] }
        var songs: [Song] = []
        for part in routine.parts where !songs.contains(where: { $0.audio == part.audio }) {
            let alone = routine.parts.filter { $0.audio == part.audio }.count == 1
            songs.append(Song(audio: part.audio, title: alone ? part.title : "Song \(songs.count + 1)"))
        }
        let titles = Set(state.routines.map(\.title))
        var title = "New routine"
        var n = 2
        while titles.contains(title) {
            title = "New routine \(n)"
            n += 1
        }
        NoticeRules.hint(title, &state)
        return [.persist(.newRoutine(title: title, songs: songs))]
    }
}
