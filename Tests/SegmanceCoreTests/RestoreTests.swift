import Testing
@testable import SegmanceCore

/// Boot: the library's routines, settings and where the performer left off.
@Suite(.tags(.unit)) struct RestoreTests {
    typealias F = Fixture

    private func booted() -> TestStore {
        var state = PlayerState()
        _ = Rules.reduce(&state, .booted)
        return TestStore(state)
    }

    @Test func resumeSelectsThePartAndPositionStoppedThere() {
        var store = booted()
        let resume = ResumePoint(routine: "Salsa", part: 1, partTitle: "Part 2", position: F.s(42))
        let saved = Settings(countdown: 5, atPartEnd: .next, volume: 60)
        store.send(.restored(LibrarySnapshot(routines: [F.salsa, F.tango], settings: saved, resume: resume)), [
            .audio(.setVolume(60), epoch: 0),
            .audio(.load(F.part(2).playable), epoch: 1),
            .audio(.setLoop(nil), epoch: 1), .audio(.setNext(F.part(3).playable), epoch: 1),
        ]) {
            $0.routines = [F.salsa, F.tango]
            $0.settings = saved
            $0.routineIndex = 0
            $0.partIndex = 1
            $0.position = F.s(42)
            $0.epoch = 1
            $0.notice = ShownNotice(notice: Notice(.info, ["Salsa", "Shines"], duration: Rules.hintDuration),
                                    until: Rules.hintDuration)
        }
        // PLAY continues from there; nothing is written at boot itself.
        store.send(.buttonPressed(.play), [.audio(.play(from: F.s(42), countdown: 5), epoch: 2)]) {
            $0.lastStart = F.s(42)
            $0.transport = .countingDown(Countdown(remaining: 5, origin: .stopped))
            $0.epoch = 2
            $0.notice = nil
        }
    }

    @Test func aPartMovedByAReimportIsFoundByItsTitle() {
        var store = booted()
        let reordered = Routine(title: "Salsa", parts: [F.part(3), F.part(1), F.part(2)])
        let resume = ResumePoint(routine: "Salsa", part: 1, partTitle: "Part 2", position: F.s(7))
        _ = Rules.reduce(&store.state, .restored(LibrarySnapshot(routines: [reordered], resume: resume)))
        #expect(store.state.partIndex == 2)
        #expect(store.state.position == F.s(7))
    }

    @Test(arguments: [
        // The routine is gone: the first routine, from its start.
        (ResumePoint(routine: "Gone", part: 1, partTitle: "Part 2", position: 5), 0, 0, FramePosition(0)),
        // The part is gone: the routine's first part, from its start.
        (ResumePoint(routine: "Tango", part: 3, partTitle: "Nope", position: 5), 1, 0, 0),
        // The position is past the (shortened) part's end: its start.
        (ResumePoint(routine: "Tango", part: 0, partTitle: "Part 4", position: 31 * 48_000), 1, 0, 0),
    ])
    func whatCannotBeResumedFallsBackToAStart(resume: ResumePoint, routine: Int, part: Int, position: FramePosition) {
        var store = booted()
        _ = Rules.reduce(&store.state, .restored(LibrarySnapshot(routines: [F.salsa, F.tango], resume: resume)))
        #expect(store.state.routineIndex == routine)
        #expect(store.state.partIndex == part)
        #expect(store.state.position == position)
        #expect(store.state.transport == .stopped)
    }

    @Test func aPositionOutsideTheSavedLoopStartsAtA() {
        let loop = ABLoop(a: F.s(20), b: F.s(30))
        let routine = Routine(title: "R", parts: [F.part(1, loop: loop)])
        var store = booted()
        let resume = ResumePoint(routine: "R", part: 0, partTitle: "Part 1", position: F.s(50))
        _ = Rules.reduce(&store.state, .restored(LibrarySnapshot(routines: [routine], resume: resume)))
        #expect(store.state.loop == .ab(loop))
        #expect(store.state.position == F.s(20))
    }

    @Test func anEmptyLibraryKeepsTheDefaultsAndAsksForAStick() {
        var store = booted()
        store.send(.restored(LibrarySnapshot(routines: [])))
        #expect(store.state.routine == nil)
    }
}

/// What the core asks the library to write, and when: pause, stop, part change, loop
/// change, leaving a setting. Never while simply playing.
@Suite(.tags(.unit)) struct PersistTests {
    typealias F = Fixture

    private func persisted(_ effects: [Effect]) -> [Persist] {
        effects.compactMap { if case .persist(let p) = $0 { p } else { nil } }
    }

    @Test func playingOnWritesNothing() {
        var state = F.loaded()
        var written: [Persist] = []
        written += persisted(Rules.reduce(&state, .buttonPressed(.play)))
        for i in 1...100 {
            written += persisted(Rules.reduce(&state, F.report(state, .position(Int64(i) * 4800))))
            written += persisted(Rules.reduce(&state, .clock(Int64(i) * 100_000_000)))
        }
        written += persisted(Rules.reduce(&state, .encoderTurned(2)))
        #expect(written.isEmpty)
        #expect(persisted(Rules.reduce(&state, .buttonPressed(.play)))
                == [.resume(ResumePoint(routine: "Salsa", part: 0, partTitle: "Part 1", position: F.s(12)))])
    }

    @Test func settingsAreWrittenWhenTheEditIsLeftNotPerDetent() {
        var state = F.loaded()
        state.menu = Menu(page: .editing(.volume))
        var writes = 0
        for _ in 0..<5 { writes += persisted(Rules.reduce(&state, .encoderTurned(-1))).count }
        #expect(writes == 0)
        #expect(persisted(Rules.reduce(&state, .buttonPressed(.select))) == [.settings(Settings(volume: 55))])
    }

    @Test func autoImportIsASettingInTheMenu() {
        var state = F.loaded()
        state.menu = Menu(page: .editing(.autoImport))
        _ = Rules.reduce(&state, .encoderTurned(1))
        #expect(state.settings.autoImport)
        #expect(persisted(Rules.reduce(&state, .buttonPressed(.select))) == [.settings(Settings(autoImport: true))])
        _ = Rules.reduce(&state, .buttonPressed(.select))
        _ = Rules.reduce(&state, .encoderTurned(-1))
        #expect(!state.settings.autoImport)
    }
}
