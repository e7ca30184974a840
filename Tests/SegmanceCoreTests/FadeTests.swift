import Testing
@testable import SegmanceCore

/// Fades (issue 29): *Stop fade* in the menu, a stop that fades over it, a part's fade at its
/// end carried to the audio side.
@Suite(.tags(.unit)) struct FadeTests {
    typealias F = Fixture

    @Test func stopFadeIsChosenFromTheOfferedValuesAndSavedWhenLeft() {
        var state = F.loaded()
        state.menu = Menu(page: .editing(.stopFade))
        var store = TestStore(state)
        store.send(.encoderTurned(3)) { $0.settings.stopFade = 2000 }
        store.send(.encoderTurned(5)) { $0.settings.stopFade = 3000 }
        store.send(.encoderTurned(-1)) { $0.settings.stopFade = 2000 }
        let row = Menu.Item.allCases.firstIndex(of: .stopFade)!
        var saved = store.state.settings
        saved.stopFade = 2000
        store.send(.buttonPressed(.select), [.persist(.settings(saved))]) { $0.menu = Menu(page: .main, cursor: row) }
    }

    @Test func aStopWithAFadeSetFadesOverItAndStopsAsBefore() {
        var store = TestStore(F.loaded(Settings(stopFade: 2000)))
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        _ = Rules.reduce(&store.state, F.report(store.state, .position(F.s(20))))
        let e = store.state.epoch + 1
        store.send(.buttonLongPressed(.play), [.audio(.stopFading(F.s(2)), epoch: e), F.resume(F.salsa, 0)]) {
            $0.transport = .stopped
            $0.position = 0
            $0.epoch = e
            $0.unsavedPlay = 0
        }
    }

    @Test(arguments: [(0, nil), (500, 24_000), (1000, 48_000), (3000, 144_000)] as [(Int, FramePosition?)])
    func theStopCommandFollowsTheSetting(milliseconds: Int, frames: FramePosition?) {
        let state = F.loaded(Settings(stopFade: milliseconds))
        #expect(TransportRules.stopCommand(state) == (frames.map { .stopFading($0) } ?? .stop))
    }

    @Test func cancellingACountdownStillCutsWithTheShortRamp() {
        var state = F.loaded(Settings(countdown: 3, stopFade: 3000))
        _ = Rules.reduce(&state, .buttonPressed(.play))
        let effects = Rules.reduce(&state, .buttonPressed(.play))
        #expect(effects == [.audio(.stop, epoch: state.epoch)])
    }

    @Test func aPartsFadeGoesWithItsAudioAndWithTheNextPart() {
        var salsa = F.salsa
        salsa.parts[0].fadeOut = F.s(2)
        salsa.parts[1].fadeOut = F.s(100)
        #expect(salsa.parts[0].playable.fadeOut == F.s(2))
        // Never longer than the part.
        #expect(salsa.parts[1].playable.fadeOut == F.s(60))
        var state = F.loaded(Settings(atPartEnd: .next), routines: [salsa])
        let effects = LoopRules.loopEffects(&state)
        #expect(effects.contains(.audio(.setNext(salsa.parts[1].playable), epoch: state.epoch)))
    }

    @Test func splittingKeepsTheFadeAtTheEndAndJoiningBringsItBack() {
        var part = F.part(1, seconds: 60)
        part.range = 0..<F.s(60)
        part.fadeOut = F.s(3)
        let (left, right) = EditRules.pieces(of: part, at: F.s(20), secondTitle: "Part 1 2")
        #expect(left.fadeOut == 0)
        #expect(right.fadeOut == F.s(3))
        #expect(EditRules.joined(left, right)?.fadeOut == F.s(3))
    }
}
