import Testing
@testable import SegmanceCore

/// *Again* (PREV's double press, issue 29 item 6).
@Suite(.tags(.unit)) struct AgainTests {
    typealias F = Fixture

    /// PLAY at 0:12, a seek to 0:20, then *Again*: back to 0:12 through the count-in, as PLAY was.
    @Test func againAfterASeekStartsWhereTheLastPlayStartedWithTheCountIn() {
        var store = TestStore(F.loaded(Settings(countdown: 3)))
        store.state.position = F.s(12)
        let e = store.state.epoch
        store.send(.buttonPressed(.play), [.audio(.play(from: F.s(12), countdown: 3), epoch: e + 1)]) {
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .stopped))
            $0.epoch = e + 1
            $0.lastStart = F.s(12)
        }
        store.state.transport = .playing
        store.send(.encoderTurned(8), [.audio(.seek(to: F.s(20)), epoch: e + 2)]) {
            $0.position = F.s(20)
            $0.epoch = e + 2
        }
        store.send(.buttonDoublePressed(.prev), [.audio(.play(from: F.s(12), countdown: 3), epoch: e + 3)]) {
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .playing))
            $0.position = F.s(12)
            $0.epoch = e + 3
        }
    }

    /// A move's cue is a play's start too; *Again* from a pause plays it again.
    @Test func aCueIsAStartAndAgainFromAPauseGoesBackToIt() {
        let move = Move(type: MoveType("Dance"), name: "Spin", cue: F.s(8))
        var store = TestStore(F.loaded(routines: [Routine(title: "Salsa", parts: [F.part(1, moves: [move])])]))
        store.state.view = .moves
        let e = store.state.epoch
        store.send(.buttonPressed(.select), [.audio(.play(from: F.s(8), countdown: 0), epoch: e + 1)]) {
            $0.transport = .playing
            $0.position = F.s(8)
            $0.epoch = e + 1
            $0.lastStart = F.s(8)
        }
        store.state.transport = .paused
        store.state.position = F.s(30)
        store.send(.buttonDoublePressed(.prev), [.audio(.play(from: F.s(8), countdown: 0), epoch: e + 2)]) {
            $0.transport = .playing
            $0.position = F.s(8)
            $0.epoch = e + 2
        }
    }

    @Test func withNothingPlayedInThePartAgainSaysSoAndAPartChangeForgetsTheStart() {
        var store = TestStore(F.loaded())
        store.send(.buttonDoublePressed(.prev)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Nothing to repeat"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        #expect(store.state.lastStart == 0)
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        _ = Rules.reduce(&store.state, .buttonPressed(.next))
        #expect(store.state.lastStart == nil)
    }

    /// A start outside the A–B loop set since: *Again* goes to A, as a seek cannot leave the loop.
    @Test func aStartOutsideTheLoopOnNowGoesToA() {
        var store = TestStore(F.loaded())
        store.state.lastStart = F.s(2)
        store.state.loop = .ab(ABLoop(a: F.s(10), b: F.s(14)))
        store.state.position = F.s(12)
        let effects = Rules.reduce(&store.state, .buttonDoublePressed(.prev))
        #expect(effects == [.audio(.play(from: F.s(10), countdown: 0), epoch: store.state.epoch)])
        #expect(store.state.lastStart == F.s(10))
    }
}
