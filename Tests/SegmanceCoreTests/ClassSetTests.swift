import Testing
@testable import SegmanceCore

/// Class sets (issue 29): tracks in order with a gap, NEXT and PREV between tracks, the menu's
/// *Class set* and *New class*.
@Suite(.tags(.unit)) struct ClassSetTests {
    typealias F = Fixture
    static let set = ClassSet(name: "Monday", tracks: [ClassTrack(routine: "Tango"),
                                                       ClassTrack(routine: "Salsa", part: 1),
                                                       ClassTrack(routine: "Salsa")], gap: 3)

    private func store(_ settings: Settings = Settings()) -> TestStore {
        var state = F.loaded(settings)
        _ = Rules.reduce(&state, .classSetsLoaded([Self.set]))
        return TestStore(state)
    }

    @Test func choosingASetPlaysItsFirstTrackCountedIn() {
        var store = store()
        let row = Menu.Item.allCases.firstIndex(of: .classSet)!
        store.state.menu = Menu(page: .main, cursor: row)
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .choosing(.classSet), cursor: 0) }
        let e = store.state.epoch
        let tango = F.tango.parts[0]
        // Tango's own count-in is 5 s.
        store.send(.buttonPressed(.select), [
            .audio(.load(tango.playable), epoch: e + 1),
            .audio(.setLoop(nil), epoch: e + 1), .audio(.setNext(nil), epoch: e + 1),
            .audio(.play(from: 0, countdown: 5), epoch: e + 2), F.resume(F.tango, 0),
        ]) {
            $0.menu = nil
            $0.classRun = ClassRun(set: 0, track: 0)
            $0.routineIndex = 1
            $0.epoch = e + 2
            $0.transport = .countingDown(Countdown(remaining: 5, origin: .stopped))
            $0.titleShownUntil = $0.now + Rules.titleDuration
            // A track started is where Again goes back to.
            $0.lastStart = 0
        }
    }

    @Test func atATracksEndTheNextLoadsAtOnceAndStartsAfterTheGapLessItsCountIn() {
        var store = store(Settings(countdown: 0))
        store.state.classRun = ClassRun(set: 0, track: 0)
        store.state.routineIndex = 1
        store.state.transport = .playing
        let e = store.state.epoch
        let part = F.salsa.parts[1]
        store.send(.audio(AudioReport(epoch: e, .partEnded)), [
            .audio(.load(part.playable), epoch: e + 1),
            .audio(.setLoop(nil), epoch: e + 1), .audio(.setNext(nil), epoch: e + 1),
            .audio(.playAfter(silence: FramePosition(3 * 48_000), from: 0, countdown: 0, countIn: nil), epoch: e + 2),
            .audio(.announce("Next: Salsa", within: FramePosition(3 * 48_000)), epoch: e + 2),
            F.resume(F.salsa, 1),
        ]) {
            $0.classRun = ClassRun(set: 0, track: 1, gapUntil: $0.now + 3_000_000_000)
            $0.routineIndex = 0
            $0.partIndex = 1
            $0.epoch = e + 2
            $0.transport = .playing
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
        // The start ends the gap.
        store.send(.audio(AudioReport(epoch: e + 2, .started(at: 0)))) { $0.classRun?.gapUntil = nil }
    }

    @Test func aCountInInSecondsComesOutOfTheGap() {
        var state = store(Settings(countdown: 0)).state
        state.classSets[0].gap = 10
        state.classRun = ClassRun(set: 0, track: 1)
        state.routineIndex = 0
        state.partIndex = 1
        state.settings.countdown = 3
        let effects = Rules.reduce(&state, .audio(AudioReport(epoch: state.epoch, .partEnded)))
        #expect(effects.contains(.audio(.playAfter(silence: 7 * 48_000, from: 0, countdown: 3, countIn: nil),
                                        epoch: state.epoch)))
        #expect(state.transport == .countingDown(Countdown(remaining: 3, origin: .stopped)))
    }

    @Test func aRoutineTrackGoesOnIntoItsNextPartsWhateverPartEndSays() {
        var state = store(Settings(atPartEnd: .stop)).state
        state.classRun = ClassRun(set: 0, track: 2)
        state.routineIndex = 0
        let effects = LoopRules.loopEffects(&state)
        #expect(effects.contains(.audio(.setNext(F.salsa.parts[1].playable), epoch: state.epoch)))
        // A one-part track does not.
        state.classRun = ClassRun(set: 0, track: 1)
        #expect(LoopRules.loopEffects(&state).contains(.audio(.setNext(nil), epoch: state.epoch)))
    }

    @Test func afterTheLastTrackTheClassIsDone() {
        var store = store()
        store.state.classRun = ClassRun(set: 0, track: 2)
        store.state.routineIndex = 0
        store.state.partIndex = 2
        store.state.transport = .playing
        store.send(.audio(AudioReport(epoch: store.state.epoch, .partEnded)), [F.resume(F.salsa, 2)]) {
            $0.classRun = nil
            $0.transport = .stopped
            $0.notice = ShownNotice(notice: Notice(.info, ["Class done", "Monday"]), until: $0.now + 3_000_000_000)
        }
    }

    @Test func nextAndPrevGoFromTrackToTrack() {
        var state = store(Settings(countdown: 0)).state
        state.classRun = ClassRun(set: 0, track: 0)
        state.routineIndex = 1
        _ = Rules.reduce(&state, .buttonPressed(.next))
        #expect(state.classRun == ClassRun(set: 0, track: 1) && state.routine?.title == "Salsa" && state.partIndex == 1)
        _ = Rules.reduce(&state, .buttonPressed(.next))
        #expect(state.classRun?.track == 2 && state.partIndex == 0)
        _ = Rules.reduce(&state, .buttonPressed(.next))
        #expect(state.classRun?.track == 2 && state.notice?.notice.lines == ["Last track"])
        _ = Rules.reduce(&state, .buttonPressed(.prev))
        #expect(state.classRun?.track == 1 && state.partIndex == 1)
        // A routine chosen by hand leaves the class.
        _ = Rules.reduce(&state, .buttonLongPressed(.next))
        #expect(state.classRun == nil)
    }

    @Test func newClassIsEveryRoutineOfTheListKept() {
        var store = store()
        store.state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .newClass)!)
        let made = ClassSet(name: "Class 2", tracks: [ClassTrack(routine: "Salsa"), ClassTrack(routine: "Tango")])
        store.send(.buttonPressed(.select), [.persist(.classSet(made))]) {
            $0.menu = nil
            $0.classSets.append(made)
            $0.notice = ShownNotice(notice: Notice(.info, ["Class 2 made"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }
}
