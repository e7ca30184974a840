import Testing
@testable import SegmanceCore

@Suite(.tags(.unit)) struct TransportTests {
    typealias F = Fixture

    @Test func playWithoutCountdownStartsAtOnce() {
        var store = TestStore(F.loaded())
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 0), epoch: e)]) {
            $0.lastStart = 0
            $0.transport = .playing
            $0.epoch = e
        }
    }

    @Test func playPauseResumeKeepsThePosition() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        store.send(F.report(store.state, .position(F.s(12)))) {
            $0.position = F.s(12)
            $0.unsavedPlay = F.s(12)
        }
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.pause, epoch: e), F.resume(F.salsa, 0, at: F.s(12))]) {
            $0.transport = .paused
            $0.epoch = e
            $0.unsavedPlay = 0
        }
        store.send(.buttonPressed(.play), [.audio(.play(from: F.s(12), countdown: 0), epoch: e + 1)]) {
            $0.lastStart = F.s(12)
            $0.transport = .playing
            $0.epoch = e + 1
        }
    }

    @Test func longPlayStopsBackToThePartStart() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        _ = Rules.reduce(&store.state, F.report(store.state, .position(F.s(20))))
        let e = store.state.epoch + 1
        store.send(.buttonLongPressed(.play), [.audio(.stop, epoch: e), F.resume(F.salsa, 0)]) {
            $0.transport = .stopped
            $0.position = 0
            $0.epoch = e
            $0.unsavedPlay = 0
        }
    }

    @Test func longPlayStopsBackToAInsideAnABLoop() {
        var state = F.loaded()
        state.loop = .ab(ABLoop(a: F.s(10), b: F.s(20)))
        state.transport = .playing
        state.position = F.s(15)
        var store = TestStore(state)
        let e = state.epoch + 1
        store.send(.buttonLongPressed(.play), [.audio(.stop, epoch: e), F.resume(F.salsa, 0, at: F.s(10))]) {
            $0.transport = .stopped
            $0.position = F.s(10)
            $0.epoch = e
        }
    }

    @Test func symbolFollowsTheRealStateWhenAudioEndsByItself() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        _ = Rules.reduce(&store.state, F.report(store.state, .position(F.s(59.9))))
        store.send(F.report(store.state, .partEnded), [F.resume(F.salsa, 0)]) {
            $0.transport = .stopped
            $0.position = 0
        }
    }

    @Test func staleReportsFromBeforeACommandAreIgnored() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        let old = store.state.epoch
        _ = Rules.reduce(&store.state, .buttonPressed(.play)) // pause
        // A partEnded and a position that were on their way before the pause applied.
        store.send(.audio(AudioReport(epoch: old, .partEnded)))
        store.send(.audio(AudioReport(epoch: old, .position(F.s(30)))))
        #expect(store.state.transport == .paused)
    }

    @Test func emptyLibraryTellsThePerformerToInsertAStick() {
        var store = TestStore(PlayerState())
        store.send(.buttonPressed(.play)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["No routines", "Insert a stick"]),
                                    until: 3_000_000_000)
        }
    }

    @Test func noticesExpireWithTheClock() {
        var store = TestStore(F.loaded())
        store.send(.notice(Notice(.problem, ["bad.mp3: not audio"], duration: 2_000_000_000))) {
            $0.notice = ShownNotice(notice: Notice(.problem, ["bad.mp3: not audio"], duration: 2_000_000_000),
                                    until: 12_000_000_000)
        }
        store.send(.clock(11_999_999_999)) { $0.now = 11_999_999_999 }
        store.send(.clock(12_000_000_000)) {
            $0.now = 12_000_000_000
            $0.notice = nil
        }
    }

    @Test func noticesQueueAndEachGetsItsTurn() {
        var store = TestStore(F.loaded())
        let first = Notice(.problem, ["a.mp3", "not audio"], duration: 1_000_000_000)
        let second = Notice(.problem, ["b.m4a", "unsupported format"], duration: 1_000_000_000)
        store.send(.notice(first)) { $0.notice = ShownNotice(notice: first, until: 11_000_000_000) }
        store.send(.notice(second)) { $0.pendingNotices = [second] }
        store.send(.clock(11_000_000_000)) {
            $0.now = 11_000_000_000
            $0.notice = ShownNotice(notice: second, until: 12_000_000_000)
            $0.pendingNotices = []
        }
        store.send(.clock(12_000_000_000)) {
            $0.now = 12_000_000_000
            $0.notice = nil
        }
    }

    @Test func aControlTakesTheScreenBackFromAnyNoticeAndWaitingProblemsComeOnceTheControlsRest() {
        var store = TestStore(F.loaded(Settings(countdown: 3)))
        _ = Rules.reduce(&store.state, .notice(Notice(.info, ["Stick found"])))
        _ = Rules.reduce(&store.state, .notice(Notice(.info, ["Salsa"])))
        #expect(store.state.pendingNotices.count == 1)
        let e = store.state.epoch + 1
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 3), epoch: e)]) {
            $0.lastStart = 0
            $0.notice = nil
            $0.pendingNotices = []
            $0.transport = .countingDown(Countdown(remaining: 3, origin: .stopped))
            $0.epoch = e
        }
        // A problem covering the screen goes too; the one waiting behind it waits for a quiet moment.
        let problem = Notice(.problem, ["x.mp3", "not audio"]), next = Notice(.problem, ["y.mp3", "not audio"])
        _ = Rules.reduce(&store.state, .notice(problem))
        _ = Rules.reduce(&store.state, .notice(next))
        store.send(.buttonPressed(.play), [.audio(.stop, epoch: e + 1)]) {
            $0.transport = .stopped
            $0.epoch = e + 1
            $0.notice = nil
            $0.noticesHeldUntil = $0.now + NoticeRules.quietAfterControl
        }
        let quiet = store.state.now + NoticeRules.quietAfterControl
        store.send(.clock(quiet - 1)) { $0.now = quiet - 1 }
        store.send(.clock(quiet)) {
            $0.now = quiet
            $0.noticesHeldUntil = nil
            $0.pendingNotices = []
            $0.notice = ShownNotice(notice: next, until: quiet + next.duration)
        }
    }

    @Test func aNoticeArrivingWhileTheMenuIsOpenWaitsUntilItCloses() {
        var store = TestStore(F.loaded())
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        let stopped = Notice(.problem, ["Import stopped", "stick removed"])
        store.send(.notice(stopped)) { $0.pendingNotices = [stopped] }
        store.send(.clock(20_000_000_000)) { $0.now = 20_000_000_000 }
        // Closing it is a control too: the notice comes once the controls rest.
        store.send(.buttonLongPressed(.select)) {
            $0.menu = nil
            $0.noticesHeldUntil = 20_000_000_000 + NoticeRules.quietAfterControl
        }
        let quiet = 20_000_000_000 + NoticeRules.quietAfterControl
        store.send(.clock(quiet)) {
            $0.now = quiet
            $0.noticesHeldUntil = nil
            $0.pendingNotices = []
            $0.notice = ShownNotice(notice: stopped, until: quiet + stopped.duration)
        }
    }

    @Test func bootTellsTheAudioSideTheVolume() {
        var store = TestStore(F.loaded(Settings(volume: 65)))
        store.send(.booted, [.audio(.setVolume(65), epoch: store.state.epoch)])
    }
}

@Suite(.tags(.unit)) struct ShutdownTests {
    typealias F = Fixture

    @Test func shuttingDownWhilePlayingPausesAndKeepsThePlace() {
        var store = TestStore(F.loaded())
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        store.send(F.report(store.state, .position(F.s(12)))) {
            $0.position = F.s(12)
            $0.unsavedPlay = F.s(12)
        }
        let e = store.state.epoch + 1
        store.send(.shuttingDown, [.audio(.pause, epoch: e), F.resume(F.salsa, 0, at: F.s(12))]) {
            $0.transport = .paused
            $0.epoch = e
            $0.unsavedPlay = 0
        }
    }

    @Test func shuttingDownDuringACountdownCancelsItAndKeepsThePlace() {
        var state = F.loaded()
        state.settings.countdown = 3
        var store = TestStore(state)
        _ = Rules.reduce(&store.state, .buttonPressed(.play))
        let e = store.state.epoch + 1
        store.send(.shuttingDown, [.audio(.stop, epoch: e), F.resume(F.salsa, 0)]) {
            $0.transport = .stopped
            $0.epoch = e
        }
    }

    @Test func shuttingDownWhileStoppedOnlyKeepsThePlace() {
        var store = TestStore(F.loaded())
        store.send(.shuttingDown, [F.resume(F.salsa, 0)])
    }

    @Test func shuttingDownWithNothingLoadedDoesNothing() {
        var store = TestStore(PlayerState())
        store.send(.shuttingDown, [])
    }
}
