import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct LoopTests {
    typealias F = Fixture

    private func playingAt(_ seconds: Double, _ settings: Settings = Settings()) -> TestStore {
        var state = F.loaded(settings)
        state.transport = .playing
        state.position = F.s(seconds)
        return TestStore(state)
    }

    @Test func loopMarksAThenBThenClears() {
        var store = playingAt(10)
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(10))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        store.state.position = F.s(18)
        let e = store.state.epoch
        let loop = ABLoop(a: F.s(10), b: F.s(18))
        // The loop is saved with the part, in the library too.
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: F.s(10)..<F.s(18))), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: loop)),
        ]) {
            $0.loop = .ab(loop)
            $0.routines[0].parts[0].savedLoop = loop
        }
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: nil)),
        ]) {
            $0.loop = .off
            $0.routines[0].parts[0].savedLoop = nil
            $0.loopTimesShownUntil = nil
        }
    }

    @Test(arguments: [(at: 10.2, hint: "Loop too short"), (at: 9.0, hint: "B must follow A"), (at: 10.0, hint: "Loop too short")])
    func markersNeverCross(at: Double, hint: String) {
        var store = playingAt(10)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        store.state.position = F.s(at)
        store.send(.buttonPressed(.loop)) {
            $0.notice = ShownNotice(notice: Notice(.info, [hint], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        #expect(store.state.loop == .markedA(F.s(10)))
    }

    @Test func bAtExactlyTheMinimumIsAccepted() {
        var store = playingAt(10)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        store.state.position = F.s(10) + Rules.minimumLoopMilliseconds * F.rate / 1000
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(10), b: F.s(10.5))))
    }

    @Test func longLoopTogglesTheWholePartLoop() {
        var store = playingAt(5)
        let e = store.state.epoch
        store.send(.buttonLongPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: 0..<F.s(60))), epoch: e), .audio(.setNext(nil), epoch: e),
        ]) { $0.loop = .part }
        store.send(.buttonLongPressed(.loop), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.loop = .off
        }
    }

    @Test func partLoopAndABExcludeEachOther() {
        var store = playingAt(5)
        _ = Rules.reduce(&store.state, .buttonLongPressed(.loop))
        #expect(store.state.loop == .part)
        let e = store.state.epoch
        // Marking A leaves the part loop.
        store.send(.buttonPressed(.loop), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.loop = .markedA(F.s(5))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        store.state.position = F.s(9)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        #expect(store.state.loop == .ab(ABLoop(a: F.s(5), b: F.s(9))))
        // The part loop replaces the A–B loop.
        store.send(.buttonLongPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: 0..<F.s(60))), epoch: e), .audio(.setNext(nil), epoch: e),
        ]) { $0.loop = .part }
    }

    @Test func aSavedLoopIsArmedWhenThePartIsEntered() {
        let saved = ABLoop(a: F.s(20), b: F.s(32))
        let routine = Routine(title: "Juggling", parts: [F.part(1), F.part(2, loop: saved)])
        var store = TestStore(F.loaded(routines: [routine]))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.next), [
            .audio(.load(routine.parts[1].playable), epoch: e),
            .audio(.setLoop(LoopRegion(range: saved.a..<saved.b)), epoch: e),
            .audio(.setNext(nil), epoch: e),
            F.resume(routine, 1, at: saved.a),
        ]) {
            $0.partIndex = 1
            $0.loop = .ab(saved)
            $0.position = saved.a
            $0.epoch = e
            $0.titleShownUntil = $0.now + Rules.titleDuration
        }
    }

    @Test func theLoopWrappingReportsPutsThePositionAtA() {
        var store = playingAt(17.9)
        store.state.loop = .ab(ABLoop(a: F.s(10), b: F.s(18)))
        store.send(F.report(store.state, .looped)) {
            $0.position = F.s(10)
            $0.loopPass = 2
        }
    }

    @Test func autoAdvanceIsSuspendedWhileALoopIsOn() {
        var store = playingAt(5, Settings(atPartEnd: .next))
        let effects = Rules.reduce(&store.state, .buttonLongPressed(.loop))
        #expect(effects.contains(.audio(.setNext(nil), epoch: store.state.epoch)))
        let cleared = Rules.reduce(&store.state, .buttonLongPressed(.loop))
        #expect(cleared.contains(.audio(.setNext(F.part(2).playable), epoch: store.state.epoch)))
    }
}
