import Testing
@testable import SegmanceCore

/// A control acts where the performer heard the music: the frame sounding at its
/// instant (`Event.heard`, sent just before it), not the position last read.
@Suite(.tags(.unit)) struct HeardTests {
    typealias F = Fixture

    private func playingAt(_ seconds: Double) -> TestStore {
        var state = F.loaded()
        state.transport = .playing
        state.position = F.s(seconds)
        return TestStore(state)
    }

    @Test func marksTakeTheHeardFrameAndForgetIt() {
        // The render side is at 10.1 s; 10.0 s was sounding at the press.
        var store = playingAt(10.1)
        store.send(.heard(F.s(10))) { $0.heard = F.s(10) }
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(10))
            $0.heard = nil
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        store.state.position = F.s(18.1)
        store.send(.heard(F.s(18)))  { $0.heard = F.s(18) }
        let e = store.state.epoch
        let loop = ABLoop(a: F.s(10), b: F.s(18))
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: F.s(10)..<F.s(18))), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: loop)),
        ]) {
            $0.loop = .ab(loop)
            $0.routines[0].parts[0].savedLoop = loop
            $0.heard = nil
        }
    }

    @Test func aSeekIsRelativeToWhatWasHeard() {
        var store = playingAt(20.1)
        store.send(.heard(F.s(20))) { $0.heard = F.s(20) }
        let e = store.state.epoch + 1
        store.send(.encoderTurned(2), [.audio(.seek(to: F.s(22)), epoch: e)]) {
            $0.position = F.s(22)
            $0.epoch = e
            $0.heard = nil
        }
    }

    /// Heard just before a loop's seam, while the render side has wrapped to A: the mark is
    /// where the music was heard, not A.
    @Test func acrossASeamTheMarkIsTheHeardFrame() {
        var store = playingAt(5)
        store.send(.heard(F.s(9.95))) { $0.heard = F.s(9.95) }
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(9.95))
            $0.heard = nil
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
    }

    /// Paused or stopped nothing sounds: a heard frame is ignored and the core's position
    /// (where the pause settled) counts; a frame past the part is clamped into it.
    @Test func notPlayingTheHeardFrameIsIgnoredAndItIsClampedToThePart() {
        var store = playingAt(10)
        store.state.transport = .paused
        store.send(.heard(F.s(3)))
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(10))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        var playing = playingAt(10)
        playing.send(.heard(F.s(500))) { $0.heard = F.s(60) - 1 }
    }

    /// PREV restarts the part when what was heard is past the threshold, even if the
    /// position last read is not.
    @Test func prevJudgesTheHeardPlace() {
        var store = playingAt(2.9)
        store.send(.heard(F.s(3.5))) { $0.heard = F.s(3.5) }
        let effects = Rules.reduce(&store.state, .buttonPressed(.prev))
        #expect(effects.contains(.audio(.play(from: 0, countdown: 0), epoch: store.state.epoch)))
        #expect(store.state.partIndex == 0 && store.state.heard == nil)
    }
}
