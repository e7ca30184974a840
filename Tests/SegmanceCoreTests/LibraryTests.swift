import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct LibraryTests {
    typealias F = Fixture

    @Test func theFirstRoutinesLoadTheFirstPart() {
        var store = TestStore(PlayerState())
        store.send(.routinesLoaded([F.salsa]), [
            .audio(.stop, epoch: 1), .audio(.load(F.part(1).playable), epoch: 2),
            .audio(.setLoop(nil), epoch: 2), .audio(.setNext(nil), epoch: 2), F.resume(F.salsa, 0),
        ]) {
            $0.routines = [F.salsa]
            $0.routineIndex = 0
            $0.epoch = 2
            $0.notice = ShownNotice(notice: Notice(.info, ["Salsa", "Shines"], duration: Rules.hintDuration),
                                    until: Rules.hintDuration)
        }
    }

    @Test func reloadingKeepsWhatIsSoundingWhenItIsUnchanged() {
        var state = F.loaded()
        state.transport = .playing
        state.partIndex = 1
        var store = TestStore(state)
        let extra = Routine(title: "Bachata", parts: [F.part(9)])
        store.send(.routinesLoaded([extra, F.salsa, F.tango])) {
            $0.routines = [extra, F.salsa, F.tango]
            $0.routineIndex = 1
        }
    }

    @Test func losingEveryRoutineStopsTheAudio() {
        var state = F.loaded()
        state.transport = .playing
        state.position = F.s(3)
        var store = TestStore(state)
        let e = state.epoch + 1
        store.send(.routinesLoaded([]), [.audio(.stop, epoch: e)]) {
            $0.routines = []
            $0.routineIndex = nil
            $0.transport = .stopped
            $0.position = 0
            $0.epoch = e
        }
    }

    @Test func theCurrentMoveFollowsCueTimes() {
        let moves = [Move(type: MoveType("Dance"), name: "Walk in"),
                     Move(type: MoveType("Dance"), name: "Spin", cue: F.s(12.5)),
                     Move(type: MoveType("Juggle"), name: "Cascade", cue: F.s(20))]
        var state = F.loaded(routines: [Routine(title: "R", parts: [F.part(1, moves: moves)])])
        #expect(state.currentMoveIndex == 0)
        state.position = F.s(12.5) - 1
        #expect(state.currentMoveIndex == 0)
        state.position = F.s(12.5)
        #expect(state.currentMoveIndex == 1)
        state.position = F.s(25)
        #expect(state.currentMoveIndex == 2)
    }
}
