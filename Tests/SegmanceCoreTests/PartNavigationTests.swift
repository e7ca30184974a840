import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct PartNavigationTests {
    typealias F = Fixture

    private func loadEffects(_ part: Part, epoch: UInt32, loop: LoopRegion? = nil, next: PartAudio?) -> [Effect] {
        [.audio(.load(part.playable), epoch: epoch), .audio(.setLoop(loop), epoch: epoch),
         .audio(.setNext(next), epoch: epoch)]
    }

    @Test func nextWhileStoppedSelectsTheNextPartStopped() {
        var store = TestStore(F.loaded())
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next), loadEffects(F.part(2), epoch: e, next: nil) + [F.resume(F.salsa, 1)]) {
            $0.partIndex = 1
            $0.epoch = e
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
    }

    @Test func nextWhilePlayingCountsInAndPlaysTheNextPart() {
        var store = TestStore(F.loaded(Settings(countdown: 3)))
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        _ = Rules.reduce(&store.state, F.report(store.state, .started(at: 0)))
        _ = Rules.reduce(&store.state, F.report(store.state, .position(F.s(8))))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next),
                   loadEffects(F.part(2), epoch: e, next: nil)
                   + [.audio(.play(from: 0, countdown: 3), epoch: e + 1), F.resume(F.salsa, 1)]) {
            $0.partIndex = 1
            $0.position = 0
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .stopped))
            $0.epoch = e + 1
            $0.titleShownUntil = $0.now + Rules.titleDuration
            $0.unsavedPlay = 0
        }
    }

    @Test func nextOnTheLastPartStaysAndSaysSo() {
        var state = F.loaded()
        state.partIndex = 2
        var store = TestStore(state)
        store.send(.buttonPressed(.next)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Last part"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    @Test func prevEarlyInAPartGoesToThePreviousPart() {
        var state = F.loaded()
        state.partIndex = 1
        state.position = F.s(2.9)
        var store = TestStore(state)
        let e = state.epoch + 1
        store.send(.buttonPressed(.prev), loadEffects(F.part(1), epoch: e, next: nil) + [F.resume(F.salsa, 0)]) {
            $0.partIndex = 0
            $0.position = 0
            $0.epoch = e
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
    }

    @Test func prevMoreThanThreeSecondsInRestartsThePart() {
        var state = F.loaded()
        state.partIndex = 1
        state.position = F.s(3.1)
        state.transport = .paused
        var store = TestStore(state)
        store.send(.buttonPressed(.prev)) { $0.position = 0 }
    }

    @Test func prevRestartWhilePlayingCountsInAgain() {
        var state = F.loaded(Settings(countdown: 3))
        state.partIndex = 1
        state.position = F.s(30)
        state.transport = .playing
        var store = TestStore(state)
        let e = state.epoch + 1
        store.send(.buttonPressed(.prev), [.audio(.play(from: 0, countdown: 3), epoch: e)]) {
            $0.lastStart = 0
            $0.position = 0
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .playing))
            $0.epoch = e
        }
    }

    @Test func prevOnTheFirstPartRestartsIt() {
        var state = F.loaded()
        state.position = F.s(1)
        var store = TestStore(state)
        store.send(.buttonPressed(.prev)) { $0.position = 0 }
    }

    @Test func longNextAndLongPrevChangeRoutine() {
        var store = TestStore(F.loaded())
        let e = store.state.epoch + 1
        let tangoPart = F.tango.parts[0]
        store.send(.buttonLongPressed(.next), loadEffects(tangoPart, epoch: e, next: nil) + [F.resume(F.tango, 0)]) {
            $0.routineIndex = 1
            $0.partIndex = 0
            $0.epoch = e
            $0.notice = ShownNotice(notice: Notice(.info, ["Tango"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        store.send(.buttonLongPressed(.next)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Last routine"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        store.send(.buttonLongPressed(.prev), loadEffects(F.part(1), epoch: e + 1, next: nil) + [F.resume(F.salsa, 0)]) {
            $0.routineIndex = 0
            $0.epoch = e + 1
            $0.notice = ShownNotice(notice: Notice(.info, ["Salsa", "Shines"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    @Test func autoAdvanceQueuesTheNextPartAndFollowsWhenTheAudioSideAdvances() {
        var store = TestStore(F.loaded(Settings(atPartEnd: .next)))
        // Entering a part with auto-advance on queues the following one.
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next), loadEffects(F.part(2), epoch: e, next: F.part(3).playable)
                   + [F.resume(F.salsa, 1)]) {
            $0.partIndex = 1
            $0.epoch = e
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        store.send(F.report(store.state, .advanced), [
            .audio(.setLoop(nil), epoch: store.state.epoch), .audio(.setNext(nil), epoch: store.state.epoch),
            F.resume(F.salsa, 2),
        ]) {
            $0.partIndex = 2
            $0.position = 0
        }
        #expect(store.state.transport == .playing)
    }

    @Test func withoutAutoAdvanceNothingIsQueued() {
        var state = F.loaded(Settings(atPartEnd: .stop))
        let effects = Rules.reduce(&state, .buttonPressed(.next))
        #expect(effects.contains(.audio(.setNext(nil), epoch: state.epoch)))
    }

    /// Only one part ever sounds: every part change is a single `load`, which replaces
    /// whatever was sounding, and no command names two parts.
    @Test func onlyOnePartEverSounds() {
        var state = F.loaded(Settings(countdown: 3, atPartEnd: .next))
        let script: [Event] = [.buttonPressed(.play), .buttonPressed(.next), .buttonPressed(.next),
                               .buttonPressed(.prev), .buttonLongPressed(.next), .buttonLongPressed(.prev)]
        for event in script {
            let loads = Rules.reduce(&state, event).filter {
                if case .audio(.load, _) = $0 { return true } else { return false }
            }
            #expect(loads.count <= 1)
        }
    }
}
