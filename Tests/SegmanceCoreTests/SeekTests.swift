import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct SeekTests {
    typealias F = Fixture

    @Test(arguments: [(from: 10.0, detents: 3, to: 13.0), (from: 10.0, detents: -4, to: 6.0),
                      (from: 1.0, detents: -5, to: 0.0), (from: 58.0, detents: 12, to: 60.0 - 1.0 / 48_000)])
    func seekWhilePlayingMovesAndTellsTheAudioSide(from: Double, detents: Int, to: Double) {
        var state = F.loaded()
        state.transport = .playing
        state.position = F.s(from)
        var store = TestStore(state)
        let target = to == 60.0 - 1.0 / 48_000 ? F.s(60) - 1 : F.s(to)
        let e = state.epoch + 1
        store.send(.encoderTurned(detents), [.audio(.seek(to: target), epoch: e)]) {
            $0.position = target
            $0.epoch = e
        }
    }

    @Test func seekWhileStoppedOnlyMovesTheStartPoint() {
        var store = TestStore(F.loaded())
        store.send(.encoderTurned(7)) { $0.position = F.s(7) }
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: F.s(7), countdown: 0), epoch: e)]) {
            $0.lastStart = F.s(7)
            $0.transport = .playing
            $0.epoch = e
        }
    }

    @Test(arguments: [(detents: 20, to: 17.0), (detents: -20, to: 10.0), (detents: 2, to: 16.0)])
    func seekingCannotLeaveAnActiveABRegion(detents: Int, to: Double) {
        var state = F.loaded()
        state.transport = .playing
        state.position = F.s(14)
        state.loop = .ab(ABLoop(a: F.s(10), b: F.s(17)))
        var store = TestStore(state)
        let target = to == 17.0 ? F.s(17) - 1 : F.s(to)
        let e = state.epoch + 1
        store.send(.encoderTurned(detents), [.audio(.seek(to: target), epoch: e)]) {
            $0.position = target
            $0.epoch = e
        }
    }

    @Test func seekAtTheLimitDoesNothing() {
        var store = TestStore(F.loaded())
        store.send(.encoderTurned(-3))
    }

    @Test func staleBeforeSeekPositionsDoNotJumpBack() {
        var state = F.loaded()
        state.transport = .playing
        state.position = F.s(10)
        var store = TestStore(state)
        let before = state.epoch
        _ = Rules.reduce(&store.state, .encoderTurned(5))
        store.send(.audio(AudioReport(epoch: before, .position(F.s(10.01)))))
        #expect(store.state.position == F.s(15))
    }
}
