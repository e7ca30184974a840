import Testing
@testable import SegmanceCore

/// What the stick says is a routine's default, what the teacher chose on the box overrides it
/// for that routine or part only, and the teacher's settings apply where neither says
/// (docs/controls.md, *Whose value*). Choosing a routine never writes a setting.
@Suite(.tags(.unit)) struct LayerTests {
    typealias F = Fixture

    /// Salsa (no countdown of its own) and Tango (its stick says 5 s).
    static func beats4() -> PlayerState { F.loaded(Settings(countdownBeats: 4)) }

    @Test func visitingARoutineWithItsOwnCountdownLeavesTheTeachersCountInForTheOthers() {
        var state = Self.beats4()
        _ = Rules.reduce(&state, .buttonLongPressed(.next)) // Tango: its own 5 s
        #expect(state.countdownSeconds == 5 && state.countdownBeats == 0)
        _ = Rules.reduce(&state, .buttonLongPressed(.prev)) // Salsa: the teacher's four beats
        #expect(state.settings == Settings(countdownBeats: 4))
        #expect(state.countdownBeats == 4)
        let effects = Rules.reduce(&state, .buttonPressed(.play))
        // Salsa's part has no beat grid: four ticks a second apart.
        #expect(effects == [.audio(.play(from: 0, countdown: 4), epoch: state.epoch)])
        // A save of the settings (the volume gesture) writes the teacher's values, not Tango's.
        _ = Rules.reduce(&state, .encoderTurnedHolding(.play, 1))
        _ = Rules.reduce(&state, .clock(state.now + Rules.volumeBarDuration))
        #expect(state.settings.countdownBeats == 4 && state.settings.countdown == 0)
    }

    /// The menu's *Countdown* on a routine with its own: the first choice is the routine's
    /// ("stick"); any other is the teacher's ("mine"), kept as that routine's choice.
    @Test func theCountdownMenuOffersTheRoutinesOwnFirstAndRemembersMine() {
        var state = Self.beats4()
        _ = Rules.reduce(&state, .buttonLongPressed(.next)) // Tango
        state.notice = nil
        var store = TestStore(state)
        let e = store.state.epoch
        let loopEffects: [Effect] = [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 1 }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.countdown)) }
        store.send(.encoderTurned(-1), loopEffects) // already the first: the routine's own
        store.send(.encoderTurned(1), loopEffects) {
            $0.routines[1].countdownChoice = .mine
            $0.settings.countdown = 0
            $0.settings.countdownBeats = 0
        }
        #expect(store.state.countdownSeconds == 0 && store.state.countdownBeats == 0)
        store.send(.encoderTurned(2), loopEffects) { $0.settings.countdown = 5 }
        store.send(.buttonPressed(.select), [
            .persist(.settings(Settings(countdown: 5))),
            .persist(.countdownChoice(routine: "Tango", choice: .mine)),
        ]) { $0.menu = Menu(page: .main, cursor: 1) }
        // Back to the routine's own: the teacher's value stays theirs for the other routines.
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.countdown)) }
        store.send(.encoderTurned(-10), loopEffects) { $0.routines[1].countdownChoice = .routine }
        store.send(.buttonPressed(.select), [
            .persist(.settings(Settings(countdown: 5))),
            .persist(.countdownChoice(routine: "Tango", choice: .routine)),
        ]) { $0.menu = Menu(page: .main, cursor: 1) }
        #expect(store.state.countdownSeconds == 5)
    }

    @Test func aRoutineWithoutItsOwnCountdownEditsTheTeachersAsBefore() {
        var store = TestStore(Self.beats4())
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 1 }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.countdown)) }
        let e = store.state.epoch
        store.send(.encoderTurned(-1), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.settings.countdownBeats = 0
            $0.settings.countdown = 20
        }
        store.send(.buttonPressed(.select), [.persist(.settings(Settings(countdown: 20)))]) {
            $0.menu = Menu(page: .main, cursor: 1)
        }
    }

    // MARK: The stick's loop

    static let stickLoop = ABLoop(a: F.s(8), b: F.s(16))

    static func withStickLoop() -> PlayerState {
        var part = F.part(1, loop: stickLoop)
        part.stickLoop = stickLoop
        return F.loaded(routines: [Routine(title: "Jam", parts: [part])])
    }

    @Test func loopClearsTheStickLoopOnlyForTheBoxAndStickLoopBringsItBack() {
        var store = TestStore(Self.withStickLoop())
        let e = store.state.epoch
        #expect(store.state.loop == .ab(Self.stickLoop))
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Jam", part: 0, partTitle: "Part 1", loop: nil)),
        ]) {
            $0.loop = .off
            $0.routines[0].parts[0].savedLoop = nil
        }
        #expect(store.state.part?.stickLoop == Self.stickLoop)
        let index = Menu.Item.allCases.firstIndex(of: .stickLoop)!
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.encoderTurned(index)) { $0.menu?.cursor = index }
        let region = LoopRegion(range: Self.stickLoop.a..<Self.stickLoop.b, countdownBeforeRepeat: 0,
                                pauseBeforeRepeat: 0, passes: 0, countInBeforeRepeat: nil)
        store.send(.buttonPressed(.select), [
            .audio(.setLoop(region), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.stickLoopBack(routine: "Jam", part: 0, partTitle: "Part 1")),
        ]) {
            $0.menu = nil
            $0.loop = .ab(Self.stickLoop)
            $0.position = Self.stickLoop.a
            $0.routines[0].parts[0].savedLoop = Self.stickLoop
        }
    }

    @Test func stickLoopOnAPartWithoutOneSaysSo() {
        var store = TestStore(F.loaded())
        let index = Menu.Item.allCases.firstIndex(of: .stickLoop)!
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.encoderTurned(index)) { $0.menu?.cursor = index }
        store.send(.buttonPressed(.select)) {
            $0.menu = nil
            $0.notice = ShownNotice(notice: Notice(.info, ["No stick loop"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    // MARK: A full card

    @Test func aSaveThatFailedIsShownOnceAndItsLandingToo() {
        var store = TestStore(F.loaded())
        let full = Notice(.problem, ["Card full:", "not saved"], duration: Rules.saveFailedDuration)
        store.send(.saveFailed(diskFull: true)) { $0.notice = ShownNotice(notice: full, until: $0.now + full.duration) }
        store.send(.saveFailed(diskFull: true)) // already on screen
        store.send(.unsavedWorkSaved) {
            $0.pendingNotices = [Notice(.info, ["Saved now"], duration: Rules.hintDuration)]
        }
    }
}
