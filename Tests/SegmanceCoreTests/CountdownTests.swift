import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct CountdownTests {
    typealias F = Fixture

    // A closure inside @Test(arguments:) crashes Swift 6.0.3's compiler (Debian 13's).
    static let countdowns = Settings.countdownChoices.filter { $0 > 0 }

    @Test(arguments: CountdownTests.countdowns)
    func playBeginsWithTheCountdown(seconds: Int) {
        var store = TestStore(F.loaded(Settings(countdown: seconds)))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: seconds), epoch: e)]) {
            $0.lastStart = 0
            $0.transport = .countingDown(Countdown(remaining: seconds, origin: .stopped))
            $0.epoch = e
        }
        for k in 0..<seconds {
            store.send(F.report(store.state, .countdownTick(remaining: seconds - 1 - k))) {
                $0.transport = .countingDown(Countdown(remaining: seconds - k, origin: .stopped))
            }
        }
        store.send(F.report(store.state, .started(at: 0))) { $0.transport = .playing }
    }

    @Test func playDuringACountdownCancelsIt() {
        var store = TestStore(F.loaded(Settings(countdown: 5)))
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.stop, epoch: e)]) {
            $0.transport = .stopped
            $0.epoch = e
        }
    }

    @Test func cancellingAResumeCountdownLeavesItPaused() {
        var state = F.loaded(Settings(countdown: 3))
        state.transport = .paused
        state.position = F.s(7)
        var store = TestStore(state)
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        #expect(store.state.transport == .countingDown(Countdown(remaining: 3, origin: .paused)))
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.stop, epoch: e)]) {
            $0.transport = .paused
            $0.epoch = e
        }
    }

    /// However often PLAY is pressed, at most one countdown is ever running: every press
    /// either starts one (after cancelling) or cancels the one running.
    @Test(arguments: 1...9)
    func oneCountdownAtATime(presses: Int) {
        var state = F.loaded(Settings(countdown: 5))
        var running = 0
        for _ in 0..<presses {
            for effect in Rules.reduce(&state, .buttonPressed(.play)) {
                if case .audio(.play(_, let countdown), _) = effect, countdown > 0 { running += 1 }
                if case .audio(.stop, _) = effect { running -= 1 }
            }
            #expect(running == 0 || running == 1)
        }
        #expect(running == (presses % 2))
    }

    @Test func lateTicksOfACancelledCountdownAreIgnored() {
        var store = TestStore(F.loaded(Settings(countdown: 5)))
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        let countingEpoch = store.state.epoch
        _ = Rules.reduce(&store.state, .buttonPressed(.play)) // cancel
        store.send(.audio(AudioReport(epoch: countingEpoch, .countdownTick(remaining: 3))))
        store.send(.audio(AudioReport(epoch: countingEpoch, .started(at: 0))))
        #expect(store.state.transport == .stopped)
    }

    @Test func countdownBeforeEveryRepeatGoesToTheLoopRegion() {
        var store = TestStore(F.loaded(Settings(countdown: 3, countdownBeforeRepeat: true)))
        store.state.position = F.s(4)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        store.state.position = F.s(9)
        let e = store.state.epoch
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: F.s(4)..<F.s(9), countdownBeforeRepeat: 3)), epoch: e),
            .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: ABLoop(a: F.s(4), b: F.s(9)))),
        ]) {
            $0.loop = .ab(ABLoop(a: F.s(4), b: F.s(9)))
            $0.routines[0].parts[0].savedLoop = ABLoop(a: F.s(4), b: F.s(9))
        }
    }

    @Test func theRepeatCountdownShowsAndThenPlaysOn() {
        var state = F.loaded(Settings(countdown: 3, countdownBeforeRepeat: true))
        state.transport = .playing
        state.loop = .part
        var store = TestStore(state)
        store.send(F.report(store.state, .looped)) { $0.loopPass = 2 }
        store.send(F.report(store.state, .countdownTick(remaining: 2))) {
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .playing))
        }
        store.send(F.report(store.state, .started(at: 0))) { $0.transport = .playing }
    }

    @Test func aRoutineManifestGivesTheRoutinesCountdownAndLeavesTheSettingsAlone() {
        var store = TestStore(F.loaded())
        #expect(store.state.settings.countdown == 0)
        _ = Rules.reduce(&store.state, .buttonLongPressed(.next)) // Tango: countdown 5
        #expect(store.state.countdownSeconds == 5)
        #expect(store.state.settings.countdown == 0)
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 5), epoch: e)]) {
            $0.lastStart = 0
            $0.transport = .countingDown(Countdown(remaining: 5, origin: .stopped))
            $0.epoch = e
            $0.notice = nil // the routine's title gives way to the countdown
        }
    }
}
