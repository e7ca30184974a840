import Testing
@testable import SegmanceCore

/// What a teacher uses all day (issue 16): which routine, the moves, the volume without the
/// menu, loops that count, the light, the place kept through a power cut.
@Suite(.tags(.unit)) struct TeachingDayTests {
    typealias F = Fixture

    static let moves = [
        Move(type: MoveType("Dance"), name: "Box step"),
        Move(type: MoveType("Juggle"), name: "Cascade", note: "eyes up", cue: F.s(8)),
        Move(type: MoveType("Dance"), name: "Spin", cue: F.s(24)),
    ]
    static let withMoves = Routine(title: "Salsa", parts: [F.part(1, moves: moves), F.part(2)])

    private func playing(_ settings: Settings = Settings(), routines: [Routine] = [F.salsa, F.tango],
                         at seconds: Double = 10) -> TestStore {
        var state = F.loaded(settings, routines: routines)
        state.transport = .playing
        state.position = F.s(seconds)
        return TestStore(state)
    }

    // MARK: Which routine

    @Test func aPartChangeShowsTheRoutinesTitleForAMoment() {
        var store = TestStore(F.loaded())
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next), [
            .audio(.load(F.salsa.parts[1].playable), epoch: e), .audio(.setLoop(nil), epoch: e),
            .audio(.setNext(nil), epoch: e), F.resume(F.salsa, 1),
        ]) {
            $0.partIndex = 1
            $0.epoch = e
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
        store.send(.clock(store.state.now + Rules.titleDuration)) {
            $0.now += Rules.titleDuration
            $0.titleShownUntil = nil
        }
    }

    @Test func theEncodersLongPushShowsTheTitleAndLeavesTheMovesView() {
        var store = TestStore(F.loaded())
        store.send(.buttonLongPressed(.select)) { $0.titleShownUntil = $0.now + Rules.titleDuration }
        store.state.view = .moves
        store.state.moveCursor = 2
        store.send(.buttonLongPressed(.select)) {
            $0.view = .nowPlaying
            $0.moveCursor = nil
        }
    }

    @Test func theNextPartTakingOverShowsTheTitleToo() {
        var store = playing(Settings(atPartEnd: .next))
        let e = store.state.epoch
        store.send(F.report(store.state, .advanced), [
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(F.salsa.parts[2].playable), epoch: e), F.resume(F.salsa, 1),
        ]) {
            $0.partIndex = 1
            $0.position = 0
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
    }

    // MARK: Moves

    @Test func theEncoderWalksTheMovesAndStopsAtTheEnds() {
        var state = F.loaded(routines: [Self.withMoves])
        state.view = .moves
        var store = TestStore(state)
        store.send(.encoderTurned(1)) { $0.moveCursor = 1 }
        store.send(.encoderTurned(5)) { $0.moveCursor = 2 }
        store.send(.encoderTurned(-9)) { $0.moveCursor = 0 }
        #expect(store.state.position == 0, "the encoder does not seek in the moves view")
    }

    @Test func aPushOnAMoveWithACuePlaysFromItThroughTheCountIn() {
        var state = F.loaded(Settings(countdown: 3), routines: [Self.withMoves])
        state.view = .moves
        state.moveCursor = 2
        var store = TestStore(state)
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.select), [.audio(.play(from: F.s(24), countdown: 3), epoch: e)]) {
            $0.lastStart = F.s(24)
            $0.moveCursor = nil
            $0.position = F.s(24)
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .stopped))
            $0.epoch = e
        }
        // Playing: the same jump, counted in again.
        store.state.transport = .playing
        store.state.moveCursor = 1
        store.send(.buttonPressed(.select), [.audio(.play(from: F.s(8), countdown: 3), epoch: e + 1)]) {
            $0.lastStart = F.s(8)
            $0.moveCursor = nil
            $0.position = F.s(8)
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .playing))
            $0.epoch = e + 1
        }
    }

    @Test func aMoveWithoutACueOrOutsideTheLoopSaysSo() {
        var state = F.loaded(routines: [Self.withMoves])
        state.view = .moves
        state.moveCursor = 0
        var store = TestStore(state)
        store.send(.buttonPressed(.select)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["No cue"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        store.state.notice = nil
        store.state.loop = .ab(ABLoop(a: F.s(10), b: F.s(20)))
        store.state.moveCursor = 2
        store.send(.buttonPressed(.select)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Cue outside loop"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    // MARK: Volume

    @Test func playHeldAndTheEncoderTurnedIsTheVolumeSavedWhenTheBarGoes() {
        var store = playing()
        let e = store.state.epoch
        store.send(.encoderTurnedHolding(.play, 2), [.audio(.setVolume(90), epoch: e)]) {
            $0.settings.volume = 90
            $0.volumeShownUntil = $0.now + Rules.volumeBarDuration
        }
        store.send(.encoderTurnedHolding(.play, 5), [.audio(.setVolume(100), epoch: e)]) {
            $0.settings.volume = 100
        }
        // At the top: the bar stays up, nothing to send.
        let later = store.state.now + 500_000_000
        store.state.now = later
        store.send(.encoderTurnedHolding(.play, 1)) { $0.volumeShownUntil = later + Rules.volumeBarDuration }
        #expect(store.state.transport == .playing && store.state.position == F.s(10), "no seek, no pause")
        store.send(.clock(later + Rules.volumeBarDuration), [.persist(.settings(store.state.settings))]) {
            $0.now = later + Rules.volumeBarDuration
            $0.volumeShownUntil = nil
        }
    }

    @Test func aVolumeGestureUnderWayIsSavedAtShutdown() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .encoderTurnedHolding(.play, -1))
        let settings = store.state.settings
        store.send(.shuttingDown, [.persist(.settings(settings)), F.resume(F.salsa, 0)]) { $0.volumeShownUntil = nil }
    }

    // MARK: Loops that count

    @Test func theLoopCountsItsPassesAndStopsAfterN() {
        let settings = Settings(loopPause: 2, loopPasses: 3)
        var store = playing(settings)
        let e = store.state.epoch
        store.send(.buttonLongPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: 0..<F.s(60), pauseBeforeRepeat: F.s(2), passes: 3)), epoch: e),
            .audio(.setNext(nil), epoch: e),
        ]) { $0.loop = .part }
        store.send(F.report(store.state, .looped)) {
            $0.loopPass = 2
            $0.position = 0
        }
        store.send(F.report(store.state, .looped)) { $0.loopPass = 3 }
        store.state.position = F.s(59)
        store.send(F.report(store.state, .loopFinished), [F.resume(F.salsa, 0)]) {
            $0.loopPass = 1
            $0.transport = .stopped
            $0.position = 0
        }
    }

    @Test func stoppingOrSettingTheLoopAgainStartsTheCountAgain() {
        var store = playing(Settings(loopPasses: 4))
        store.state.loop = .ab(ABLoop(a: F.s(5), b: F.s(15)))
        store.state.loopPass = 3
        let e = store.state.epoch + 1
        store.send(.buttonLongPressed(.play), [.audio(.stop, epoch: e), F.resume(F.salsa, 0, at: F.s(5))]) {
            $0.transport = .stopped
            $0.position = F.s(5)
            $0.loopPass = 1
            $0.epoch = e
        }
        store.state.loopPass = 2
        store.state.menu = Menu(page: .editing(.loopPasses))
        store.send(.encoderTurned(1), [
            .audio(.setLoop(LoopRegion(range: F.s(5)..<F.s(15), passes: 5)), epoch: e), .audio(.setNext(nil), epoch: e),
        ]) {
            $0.settings.loopPasses = 5
            $0.loopPass = 1
        }
    }

    @Test(arguments: [
        (Menu.Item.loopPause, 1, Settings(loopPause: 1)), (.loopPause, 99, Settings(loopPause: 10)),
        (.loopPasses, 2, Settings(loopPasses: 3)), (.loopPasses, -1, Settings()),
        (.lightIdle, 2, Settings(lightIdle: 60)), (.lightIdle, 99, Settings(lightIdle: 600)),
    ])
    func theNewSettingsStepThroughTheirChoicesAndAreSavedWhenLeft(item: Menu.Item, detents: Int, expected: Settings) {
        var state = F.loaded()
        state.menu = Menu(page: .editing(item))
        _ = Rules.reduce(&state, .encoderTurned(detents))
        #expect(state.settings == expected)
        let effects = Rules.reduce(&state, .buttonPressed(.select))
        #expect(effects == [.persist(.settings(expected))])
        #expect(state.menu == Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: item)!))
    }

    @Test func theCountInBeforeARepeatKeepsThePass() {
        var store = playing(Settings(countdown: 3, countdownBeforeRepeat: true))
        store.state.loop = .part
        store.state.loopPass = 2
        store.send(F.report(store.state, .countdownTick(remaining: 2))) {
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .playing))
        }
        #expect(store.state.loopPass == 2)
    }

    // MARK: Light

    @Test func theLightDimsAfterTheIdleTimeAndAnyControlWakesIt() {
        var state = F.loaded(Settings(lightIdle: 30))
        state.lastControl = state.now
        var store = TestStore(state)
        let start = store.state.now
        store.send(.clock(start + 29_999_999_999)) { $0.now = start + 29_999_999_999 }
        store.send(.clock(start + 30_000_000_000)) {
            $0.now = start + 30_000_000_000
            $0.backlight = false
        }
        // The control wakes the light and still acts.
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 0), epoch: e)]) {
            $0.lastStart = 0
            $0.backlight = true
            $0.lastControl = start + 30_000_000_000
            $0.transport = .playing
            $0.epoch = e
        }
        #expect(Rules.lightDimsAt(store.state) == start + 60_000_000_000)
    }

    @Test func withTheLightAlwaysOnNothingIsFollowed() {
        var store = TestStore(F.loaded())
        store.send(.clock(1_000_000_000_000)) { $0.now = 1_000_000_000_000 }
        #expect(store.state.backlight)
        #expect(Rules.lightDimsAt(store.state) == nil)
    }

    // MARK: The place survives a power cut

    @Test func whilePlayingTheResumePointIsWrittenEveryThirtySecondsOfMusic() {
        var store = playing(at: 0)
        let step = F.rate
        for second in 1...29 {
            store.send(F.report(store.state, .position(FramePosition(second) * step))) {
                $0.position = FramePosition(second) * step
                $0.unsavedPlay = FramePosition(second) * step
            }
        }
        store.send(F.report(store.state, .position(30 * step)), [F.resume(F.salsa, 0, at: 30 * step)]) {
            $0.position = 30 * step
            $0.unsavedPlay = 0
        }
        // A loop's wrap back is not music played: only forward play counts.
        store.send(F.report(store.state, .position(10 * step))) { $0.position = 10 * step }
        store.send(F.report(store.state, .position(39 * step))) {
            $0.position = 39 * step
            $0.unsavedPlay = 29 * step
        }
        // A pause writes the place and starts the count again.
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.pause, epoch: e), F.resume(F.salsa, 0, at: 39 * step)]) {
            $0.transport = .paused
            $0.epoch = e
            $0.unsavedPlay = 0
        }
    }
}
