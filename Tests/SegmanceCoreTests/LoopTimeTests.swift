import Testing
@testable import SegmanceCore

/// The A–B loop's times: shown after a mark, nudged from the menu's *A-B loop* page.
@Suite(.tags(.unit)) struct LoopTimeTests {
    typealias F = Fixture
    static let entry = Menu.Item.allCases.firstIndex(of: .abLoop)!

    private func looping(grid: BeatGrid? = nil) -> TestStore {
        var part = F.part(1, loop: ABLoop(a: F.s(10), b: F.s(18)))
        part.grid = grid
        var state = F.loaded(routines: [Routine(title: "Salsa", parts: [part])])
        state.transport = .playing
        state.position = F.s(12)
        state.menu = Menu(page: .main, cursor: Self.entry)
        return TestStore(state)
    }

    @Test func aNudgeOfBWithNoBeatMovesItFiftyMillisecondsAndTheAudioSideHearsIt() {
        var store = looping()
        let e = store.state.epoch
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .loopEnds(.a), cursor: 0) }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .loopEnds(.b), cursor: 0) }
        let moved = ABLoop(a: F.s(10), b: F.s(18) + 2 * F.rate / 20)
        store.send(.encoderTurned(2), [
            .audio(.setLoop(LoopRegion(range: moved.a..<moved.b)), epoch: e), .audio(.setNext(nil), epoch: e),
        ]) { $0.loop = .ab(moved) }
        // Leaving saves it with the part, as a loop marked on the device.
        store.send(.buttonPressed(.select), [
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: moved)),
        ]) {
            $0.menu = Menu(page: .main, cursor: Self.entry)
            $0.routines[0].parts[0].savedLoop = moved
        }
    }

    @Test func onAPartWithABeatANudgeIsABeatAndTheEndsNeverCross() {
        // 120 BPM: a beat is half a second; A and B on beats.
        var store = looping(grid: BeatGrid(beatFrames: 24_000, one: 0, origin: .manifest))
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        _ = Rules.reduce(&store.state, .encoderTurned(-1))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(10), b: F.s(17.5))))
        _ = Rules.reduce(&store.state, .encoderTurned(-100))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(10), b: F.s(10.5))))
        _ = Rules.reduce(&store.state, .buttonLongPressed(.select))
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        _ = Rules.reduce(&store.state, .encoderTurned(3))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(10), b: F.s(10.5))), "A stays before B")
        _ = Rules.reduce(&store.state, .encoderTurned(-4))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(8), b: F.s(10.5))))
    }

    /// Stopped at A (where a loop that stopped after its passes waits), a nudge of A takes
    /// the place with it, so PLAY starts at the new A; a place inside the loop stays.
    @Test func stoppedAtAANudgeOfAMovesThePlaceWithIt() {
        var store = looping()
        store.state.transport = .stopped
        store.state.position = F.s(10)
        let e = store.state.epoch
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .loopEnds(.a), cursor: 0) }
        let later = ABLoop(a: F.s(10) + F.rate / 20, b: F.s(18))
        store.send(.encoderTurned(1), [
            .audio(.setLoop(LoopRegion(range: later.a..<later.b)), epoch: e), .audio(.setNext(nil), epoch: e),
        ]) {
            $0.loop = .ab(later)
            $0.position = later.a
        }
        store.state.position = F.s(12)
        _ = Rules.reduce(&store.state, .encoderTurned(-1))
        #expect(store.state.position == F.s(12))
    }

    @Test func withNoABLoopTheEntrySaysSo() {
        var store = TestStore(F.loaded())
        store.state.menu = Menu(page: .main, cursor: Self.entry)
        store.send(.buttonPressed(.select)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["No A-B loop"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }
}
