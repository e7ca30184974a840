import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct MenuTests {
    typealias F = Fixture

    @Test func pushOpensTurnMovesLongPushCloses() {
        var store = TestStore(F.loaded())
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .main, cursor: 0) }
        store.send(.encoderTurned(2)) { $0.menu?.cursor = 2 }
        store.send(.encoderTurned(40)) { $0.menu?.cursor = Menu.Item.allCases.count - 1 }
        store.send(.encoderTurned(-40)) { $0.menu?.cursor = 0 }
        store.send(.buttonLongPressed(.select)) { $0.menu = nil }
    }

    @Test func theEncoderDoesNotSeekWhileTheMenuIsOpen() {
        var state = F.loaded()
        state.transport = .playing
        state.menu = Menu()
        var store = TestStore(state)
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 1 }
        #expect(store.state.position == 0)
    }

    @Test func routineListSelectsARoutine() {
        var store = TestStore(F.loaded())
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .routines, cursor: 0) }
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 1 }
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.select), [
            .audio(.load(F.tango.parts[0].playable), epoch: e),
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e), F.resume(F.tango, 0),
        ]) {
            $0.menu = nil
            $0.routineIndex = 1
            $0.epoch = e
            $0.notice = ShownNotice(notice: Notice(.info, ["Tango"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    @Test func longPushInTheRoutineListGoesBack() {
        var state = F.loaded()
        state.menu = Menu(page: .routines, cursor: 1)
        var store = TestStore(state)
        store.send(.buttonLongPressed(.select)) { $0.menu = Menu(page: .main, cursor: 0) }
    }

    @Test func countdownIsChosenFromTheOfferedValues() {
        var state = F.loaded()
        state.menu = Menu(page: .editing(.countdown))
        var store = TestStore(state)
        let e = state.epoch
        let loopOff: [Effect] = [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]
        store.send(.encoderTurned(1), loopOff) { $0.settings.countdown = 3 }
        store.send(.encoderTurned(2), loopOff) { $0.settings.countdown = 8 }
        // 20 s is the last in seconds (the count-ins in beats follow it).
        store.send(.encoderTurned(3), loopOff) { $0.settings.countdown = 20 }
        store.send(.encoderTurned(-1), loopOff) { $0.settings.countdown = 15 }
        // Saved when the value is left, once.
        store.send(.buttonPressed(.select), [.persist(.settings(Settings(countdown: 15)))]) {
            $0.menu = Menu(page: .main, cursor: 1)
        }
    }

    @Test func repeatModeAndPartEndAreToggled() {
        var state = F.loaded()
        state.menu = Menu(page: .editing(.atPartEnd))
        var store = TestStore(state)
        let e = state.epoch
        store.send(.encoderTurned(1), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(F.part(2).playable), epoch: e)]) {
            $0.settings.atPartEnd = .next
        }
        store.state.menu = Menu(page: .editing(.countdownBeforeRepeat))
        store.send(.encoderTurned(1), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(F.part(2).playable), epoch: e)]) {
            $0.settings.countdownBeforeRepeat = true
        }
        store.send(.encoderTurned(-1), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(F.part(2).playable), epoch: e)]) {
            $0.settings.countdownBeforeRepeat = false
        }
    }

    @Test func volumeStepsAndStaysInRange() {
        var state = F.loaded(Settings(volume: 90))
        state.menu = Menu(page: .editing(.volume))
        var store = TestStore(state)
        let e = state.epoch
        store.send(.encoderTurned(1), [.audio(.setVolume(95), epoch: e)]) { $0.settings.volume = 95 }
        store.send(.encoderTurned(5), [.audio(.setVolume(100), epoch: e)]) { $0.settings.volume = 100 }
        store.send(.encoderTurned(1))
        store.send(.encoderTurned(-30), [.audio(.setVolume(0), epoch: e)]) { $0.settings.volume = 0 }
    }

    @Test func transportButtonsStillWorkInTheMenu() {
        var state = F.loaded()
        state.menu = Menu(page: .main, cursor: 3)
        var store = TestStore(state)
        let e = state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 0), epoch: e)]) {
            $0.lastStart = 0
            $0.transport = .playing
            $0.epoch = e
        }
    }

    @Test func doublePushTogglesTheMovesViewOutsideTheMenu() {
        var store = TestStore(F.loaded())
        store.send(.buttonDoublePressed(.select)) { $0.view = .moves }
        store.send(.buttonDoublePressed(.select)) { $0.view = .nowPlaying }
        // Inside the menu a double push is two selections.
        store.state.menu = Menu(page: .main, cursor: 4)
        store.send(.buttonDoublePressed(.select), [.persist(.settings(Settings()))]) {
            $0.menu = Menu(page: .main, cursor: 4)
        }
    }
}
