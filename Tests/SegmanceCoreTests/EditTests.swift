import Testing
@testable import SegmanceCore

/// Making on the box (docs/controls.md, *Making on the box*): every gesture through the
/// menu's real events, the whole resulting state and every effect asserted.
@Suite(.tags(.unit)) struct EditTests {
    typealias F = Fixture

    /// "Song": one cut of a minute at 120 BPM ("1" at 0), moves at 0:10 and 0:40, the
    /// stick's loop 0:05–0:08, a named loop "Hit" 0:42–0:44.
    static func verse() -> Part {
        var part = Part(title: "Verse", audio: AudioReference("song.wav"), range: F.s(10)..<F.s(70), length: F.s(60),
                        moves: [Move(type: MoveType("Dance"), name: "Walk", cue: F.s(10)),
                                Move(type: MoveType("Spin"), name: "Twirl", cue: F.s(40))],
                        savedLoop: ABLoop(a: F.s(5), b: F.s(8)),
                        grid: BeatGrid(beatFrames: 24_000, one: 0, origin: .manifest),
                        stickLoop: ABLoop(a: F.s(5), b: F.s(8)))
        part.loops = [NamedLoop(name: "Hit", loop: ABLoop(a: F.s(42), b: F.s(44)))]
        return part
    }

    static let song = Routine(title: "Song", parts: [verse(), Part(title: "Coda", audio: AudioReference("coda.wav"),
                                                                     length: F.s(20))])

    /// Playing part 1 of "Song" at `position` (the engine's), the menu open on `item`.
    static func playing(at position: FramePosition, menuOn item: Menu.Item?) -> PlayerState {
        var state = F.loaded(routines: [song])
        state.transport = .playing
        state.position = position
        state.notice = nil
        state.pendingNotices = []
        state.menu = item.map { Menu(cursor: Menu.Item.allCases.firstIndex(of: $0)!) }
        return state
    }

    static func hint(_ text: String, _ state: PlayerState) -> ShownNotice {
        ShownNotice(notice: Notice(.info, [text], duration: Rules.hintDuration), until: state.now + Rules.hintDuration)
    }

    @Test func splitHereCutsThePartAtTheBeatHeardAndPlaysOnInTheSecondPiece() {
        var store = TestStore(Self.playing(at: F.s(30.5), menuOn: .split))
        let e = store.state.epoch
        store.send(.heard(F.s(30.1))) { $0.heard = F.s(30.1) }
        // 30.1 s heard: the nearest beat (Loop snap: Beat) is 30.0 s.
        let (first, second) = EditRules.pieces(of: Self.verse(), at: F.s(30), secondTitle: "Verse 2")
        let parts = [first, second, Self.song.parts[1]]
        store.send(.buttonPressed(.select), [
            .audio(.load(second.playable), epoch: e + 1),
            .audio(.setLoop(nil), epoch: e + 1), .audio(.setNext(nil), epoch: e + 1),
            .audio(.play(from: F.s(0.5), countdown: 0), epoch: e + 2),
            .persist(.parts(routine: "Song", parts: parts)),
            .persist(.resume(ResumePoint(routine: "Song", part: 1, partTitle: "Verse 2", position: F.s(0.5)))),
        ]) {
            $0.menu = nil
            $0.heard = nil
            $0.routines[0].parts = parts
            $0.partIndex = 1
            $0.position = F.s(0.5)
            $0.epoch = e + 2
            $0.loop = .off
        }
        // The pieces: the cut, cues, loops and beat each on its side, rebased in the second.
        #expect(first.range == F.s(10)..<F.s(40) && first.length == F.s(30))
        #expect(second.range == F.s(40)..<F.s(70) && second.length == F.s(30))
        #expect(first.moves.map(\.cue) == [F.s(10)] && second.moves.map(\.cue) == [F.s(10)])
        #expect(first.savedLoop == ABLoop(a: F.s(5), b: F.s(8)) && second.savedLoop == nil && second.stickLoop == nil)
        #expect(first.loops.isEmpty && second.loops == [NamedLoop(name: "Hit", loop: ABLoop(a: F.s(12), b: F.s(14)))])
        #expect(second.grid == BeatGrid(beatFrames: 24_000, one: -F.s(30), origin: .manifest))
    }

    @Test func aSplitTooNearTheEndIsRefusedWithAHint() {
        var store = TestStore(Self.playing(at: F.s(59.9), menuOn: .split))
        store.send(.heard(F.s(59.8))) { $0.heard = F.s(59.8) }
        store.send(.buttonPressed(.select)) {
            $0.menu = nil
            $0.heard = nil
            $0.notice = Self.hint("Too near end", $0)
        }
    }

    @Test func joinNextUndoesASplitExactly() {
        var state = Self.playing(at: F.s(30.5), menuOn: .split)
        _ = Rules.reduce(&state, .heard(F.s(30)))
        _ = Rules.reduce(&state, .buttonPressed(.select))
        #expect(state.routines[0].parts.count == 3)
        _ = Rules.reduce(&state, .editRequested(.goToPart(0)))
        state.transport = .paused
        state.position = F.s(12)
        state.menu = Menu(cursor: Menu.Item.allCases.firstIndex(of: .join)!)
        var store = TestStore(state)
        let e = state.epoch
        store.send(.buttonPressed(.select), [
            .audio(.load(Self.verse().playable), epoch: e + 1),
            .audio(.setLoop(LoopRegion(range: F.s(5)..<F.s(8))), epoch: e + 1), .audio(.setNext(nil), epoch: e + 1),
            .persist(.parts(routine: "Song", parts: Self.song.parts)),
            .persist(.resume(ResumePoint(routine: "Song", part: 0, partTitle: "Verse", position: F.s(5)))),
        ]) {
            $0.lastStart = nil
            $0.menu = nil
            $0.routines[0] = Self.song
            $0.transport = .stopped
            $0.loop = .ab(ABLoop(a: F.s(5), b: F.s(8)))
            // Outside the part's loop: at its A, as entering the part goes.
            $0.position = F.s(5)
            $0.epoch = e + 1
        }
        #expect(store.state.routines == [Self.song])
    }

    @Test func partsOfDifferentSongsDoNotJoin() {
        var store = TestStore(Self.playing(at: 0, menuOn: .join))
        store.send(.buttonPressed(.select)) {
            $0.menu = nil
            $0.notice = Self.hint("Not one cut", $0)
        }
    }

    @Test func namePartWalksTheListAndRenames() {
        var store = TestStore(Self.playing(at: F.s(3), menuOn: .namePart))
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.namePart), cursor: 1) } // on "Verse"
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 2 }
        #expect(Menu.rows(.namePart, store.state)[2] == "Chorus")
        var renamed = Self.song
        renamed.parts[0].title = "Chorus"
        store.send(.buttonPressed(.select), [
            .persist(.parts(routine: "Song", parts: renamed.parts)),
            .persist(.resume(ResumePoint(routine: "Song", part: 0, partTitle: "Chorus", position: F.s(3)))),
        ]) {
            $0.menu = nil
            $0.routines[0] = renamed
        }
        #expect(Names.parts.contains("Eight 16") && Names.parts.last == "Z")
    }

    @Test func deletePartAsksOnceMoreThenEntersTheNext() {
        var store = TestStore(Self.playing(at: F.s(3), menuOn: .deletePart))
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.deletePart)) }
        #expect(Menu.rows(.deletePart, store.state) == ["Delete Verse"])
        // A long push goes back: nothing deleted.
        store.send(.buttonLongPressed(.select)) { $0.menu = Menu(cursor: Menu.Item.allCases.firstIndex(of: .deletePart)!) }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.deletePart)) }
        var state = store.state
        let effects = Rules.reduce(&state, .buttonPressed(.select))
        let coda = Self.song.parts[1]
        #expect(state.routines[0].parts == [coda] && state.partIndex == 0 && state.menu == nil)
        #expect(effects.first == .persist(.parts(routine: "Song", parts: [coda])))
        #expect(effects.contains(.audio(.load(coda.playable), epoch: store.state.epoch + 1)))
        // The only part left is never deleted.
        _ = Rules.reduce(&state, .editRequested(.deletePart))
        #expect(state.routines[0].parts == [coda] && state.notice?.notice.lines == ["Only part"])
    }

    @Test func thePartsListJumpsStraightToAPart() {
        var store = TestStore(Self.playing(at: F.s(3), menuOn: .parts))
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.parts)) }
        #expect(Menu.rows(.parts, store.state) == ["Verse", "Coda"])
        store.send(.encoderTurned(5)) { $0.menu?.cursor = 1 }
        var state = store.state
        let effects = Rules.reduce(&state, .buttonPressed(.select))
        #expect(state.partIndex == 1 && state.menu == nil)
        #expect(effects.contains(.audio(.load(Self.song.parts[1].playable), epoch: store.state.epoch + 1)))
    }

    @Test func nameLoopKeepsTheABLoopAndLoopsChoosesTheOneInForce() {
        var state = Self.playing(at: F.s(6), menuOn: .nameLoop)
        state.loop = .ab(ABLoop(a: F.s(20), b: F.s(24)))
        var store = TestStore(state)
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.nameLoop)) }
        store.send(.encoderTurned(6)) { $0.menu?.cursor = 6 } // "Eight 1"
        var named = Self.song
        named.parts[0].loops.append(NamedLoop(name: "Eight 1", loop: ABLoop(a: F.s(20), b: F.s(24))))
        store.send(.buttonPressed(.select), [.persist(.parts(routine: "Song", parts: named.parts))]) {
            $0.menu = nil
            $0.routines[0] = named
            $0.notice = Self.hint("Loop Eight 1", $0)
        }
        // *Loops*: the encoder on "Hit", pushed: it is the loop in force, armed, and saved.
        store.send(.buttonPressed(.select)) {
            $0.menu = Menu()
            $0.notice = nil // a control puts the hint away
        }
        store.send(.encoderTurned(Menu.Item.allCases.firstIndex(of: .loops)!)) {
            $0.menu?.cursor = Menu.Item.allCases.firstIndex(of: .loops)!
        }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.loops)) }
        #expect(Menu.rows(.loops, store.state) == ["Hit", "Eight 1"])
        let hit = ABLoop(a: F.s(42), b: F.s(44))
        let e = store.state.epoch
        var chosen = named
        chosen.parts[0].savedLoop = hit
        store.send(.buttonPressed(.select), [
            .audio(.setLoop(LoopRegion(range: hit.a..<hit.b)), epoch: e), .audio(.setNext(nil), epoch: e),
            .audio(.play(from: hit.a, countdown: 0), epoch: e + 1),
            .persist(.savedLoop(routine: "Song", part: 0, partTitle: "Verse", loop: hit)),
        ]) {
            $0.lastStart = hit.a
            $0.menu = nil
            $0.routines[0] = chosen
            $0.loop = .ab(hit)
            $0.position = hit.a
            $0.epoch = e + 1
            $0.notice = Self.hint("Loop Hit", $0)
        }
        // `loop next` goes on to the next named loop.
        var state2 = store.state
        _ = Rules.reduce(&state2, .editRequested(.nextLoop))
        #expect(state2.part?.savedLoop == ABLoop(a: F.s(20), b: F.s(24)) && state2.loop == .ab(ABLoop(a: F.s(20), b: F.s(24))))
    }

    @Test func nameLoopWithoutAnABLoopSaysSo() {
        var state = Self.playing(at: 0, menuOn: .nameLoop)
        state.loop = .markedA(F.s(2))
        var store = TestStore(state)
        store.send(.buttonPressed(.select)) { $0.notice = Self.hint("No A-B loop", $0) }
    }

    @Test func addMoveTakesTheFrameHeardAtThePushAndTheTypeAfter() {
        var store = TestStore(Self.playing(at: F.s(25.2), menuOn: .addMove))
        store.send(.heard(F.s(25))) { $0.heard = F.s(25) }
        store.send(.buttonPressed(.select)) {
            $0.menu = Menu(page: .choosing(.addMove), at: F.s(25))
            $0.heard = nil
        }
        store.send(.encoderTurned(4)) { $0.menu?.cursor = 4 } // Spin
        var added = Self.song
        added.parts[0].moves.insert(Move(type: MoveType("Spin"), name: "Spin", cue: F.s(25)), at: 1)
        store.send(.buttonPressed(.select), [.persist(.parts(routine: "Song", parts: added.parts))]) {
            $0.menu = nil
            $0.routines[0] = added
            $0.notice = Self.hint("Spin added", $0)
        }
        // *Delete move* deletes the move shown: the last whose cue has come (Spin at 0:25).
        store.send(.buttonPressed(.select)) {
            $0.menu = Menu()
            $0.notice = nil
        }
        let deleteMove = Menu.Item.allCases.firstIndex(of: .deleteMove)!
        store.send(.encoderTurned(deleteMove)) { $0.menu?.cursor = deleteMove }
        store.send(.buttonPressed(.select), [.persist(.parts(routine: "Song", parts: Self.song.parts))]) {
            $0.menu = nil
            $0.routines[0] = Self.song
            $0.notice = Self.hint("Spin deleted", $0)
        }
    }

    @Test func newRoutineAsksTheLibraryForOnePartPerSong() {
        var store = TestStore(Self.playing(at: 0, menuOn: .newRoutine))
        store.send(.buttonPressed(.select), [.persist(.newRoutine(title: "New routine", songs: [
            Song(audio: AudioReference("song.wav"), title: "Verse"), Song(audio: AudioReference("coda.wav"), title: "Coda"),
        ]))]) {
            $0.menu = nil
            $0.notice = Self.hint("New routine", $0)
        }
    }

    /// The twin's `split` (an `Event.editRequested`) does what the menu's push does.
    @Test func anEditRequestedIsTheMenusPush() {
        var byMenu = Self.playing(at: F.s(30.5), menuOn: .split)
        var byName = Self.playing(at: F.s(30.5), menuOn: nil)
        _ = Rules.reduce(&byMenu, .heard(F.s(30.1)))
        _ = Rules.reduce(&byName, .heard(F.s(30.1)))
        let menu = Rules.reduce(&byMenu, .buttonPressed(.select))
        let named = Rules.reduce(&byName, .editRequested(.split))
        #expect(menu == named && byMenu == byName)
    }
}
