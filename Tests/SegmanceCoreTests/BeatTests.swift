import Testing
@testable import SegmanceCore

/// Musical time in the core: count-ins in beats, loops snapped to beats or eights, the
/// encoder by beats, "One here". The part: 120 BPM (a beat is 24000 frames), a "1" at 0.25 s.
@Suite(.tags(.unit)) struct BeatTests {
    typealias F = Fixture
    static let grid = BeatGrid(beatFrames: 24_000, one: 12_000, origin: .manifest)

    static func beatRoutine(grid: BeatGrid? = BeatTests.grid) -> Routine {
        var part = F.part(1, seconds: 60)
        part.grid = grid
        return Routine(title: "Salsa", parts: [part, F.part(2)])
    }

    private func store(_ settings: Settings = Settings(), grid: BeatGrid? = BeatTests.grid,
                       playingAt seconds: Double? = nil) -> TestStore {
        var state = F.loaded(settings, routines: [Self.beatRoutine(grid: grid)])
        if let seconds {
            state.transport = .playing
            state.position = F.s(seconds)
        }
        return TestStore(state)
    }

    // MARK: - The grid

    @Test(arguments: [
        (0.0, 0, 1), (0.25, 1, 1), (0.74, 1, 1), (0.75, 1, 2), (3.75, 1, 8), (4.25, 2, 1), (6.5, 2, 5),
    ] as [(Double, Int64, Int)])
    func placeInTheEights(seconds: Double, eight: Int64, beat: Int) {
        let place = Self.grid.place(of: F.s(seconds))
        // Before the first "1" (0.25 s) is the pickup, eight 0 (its beat counts back from 8).
        #expect(place.eight == eight && (seconds < 0.25 ? place.beat == 8 : place.beat == beat), "\(place)")
    }

    /// The screen shows the beat a frame is within 5 ms of: 1 ms before the "1" of eight 2
    /// (4.25 s) is already E2 B1; 6 ms before it is still E1 B8; at 4.25 s the screen's next
    /// change is 5 ms before the following beat.
    @Test(arguments: [(4.249, Int64(2), 1), (4.244, Int64(1), 8), (4.25, Int64(2), 1), (4.744, Int64(2), 1), (4.746, Int64(2), 2)]
          as [(Double, Int64, Int)])
    func theScreenShowsTheBeatAFrameIsWithinFiveMillisecondsOf(seconds: Double, eight: Int64, beat: Int) {
        let place = Self.grid.shownPlace(of: FramePosition((seconds * 48_000).rounded()), sampleRate: 48_000)
        #expect(place.eight == eight && place.beat == beat, "\(place)")
    }

    @Test func aGridFromTheTempoAndTheFrameOfABeat() {
        let grid = BeatGrid(bpm: 128, one: 0, sampleRate: 48_000, origin: .detected)
        #expect(grid?.beatFrames == 22_500)
        #expect(grid?.frame(ofBeat: 3) == 67_500)
        #expect(grid?.bpm(sampleRate: 48_000) == 128)
        #expect(BeatGrid(bpm: 0, one: 0, sampleRate: 48_000, origin: .manifest) == nil)
        #expect(BeatGrid(bpm: .nan, one: 0, sampleRate: 48_000, origin: .manifest) == nil)
    }

    // MARK: - Count-in

    @Test func playFromThePartStartCountsFourBeatsToTheFirstBeat() {
        var store = store(Settings(countdownBeats: 4))
        let e = store.state.epoch
        // The music starts at 0, a quarter beat before its first beat at 0.25 s.
        let countIn = CountIn(beats: 4, beatFrames: 24_000, lead: 12_000, firstCount: 5)
        store.send(.buttonPressed(.play), [.audio(.countIn(from: 0, countIn), epoch: e + 1)]) {
            $0.lastStart = 0
            $0.epoch = e + 1
            $0.transport = .countingDown(Countdown(remaining: 4, origin: .stopped, firstCount: 5, total: 4))
        }
        // The counts as the audio side reports them: the screen shows 5, 6, 7, 8.
        store.send(F.report(store.state, .countdownTick(remaining: 3)))
        #expect(store.state.transport == .countingDown(Countdown(remaining: 4, origin: .stopped, firstCount: 5, total: 4)))
        if case .countingDown(let c) = store.state.transport { #expect(c.shown == 5) }
        store.send(F.report(store.state, .countdownTick(remaining: 0))) {
            $0.transport = .countingDown(Countdown(remaining: 1, origin: .stopped, firstCount: 5, total: 4))
        }
        if case .countingDown(let c) = store.state.transport { #expect(c.shown == 8) }
        store.send(F.report(store.state, .started(at: 0))) { $0.transport = .playing }
    }

    @Test(arguments: [
        // (start, beats, lead, first count): on a "1" no lead; between beats the music starts a
        // fraction of a beat before the next; the counts are those of the beats they stand for.
        (4.25, 8, 0, 1), (4.25, 4, 0, 5), (4.5, 4, 12_000, 6), (5.25, 4, 0, 7),
    ] as [(Double, Int, Int64, Int)])
    func aCountInLeadsToTheNextBeat(start: Double, beats: Int, lead: Int64, firstCount: Int) {
        var store = store(Settings(countdownBeats: beats))
        store.state.position = F.s(start)
        let e = store.state.epoch
        let countIn = CountIn(beats: beats, beatFrames: 24_000, lead: lead, firstCount: firstCount)
        store.send(.buttonPressed(.play), [.audio(.countIn(from: F.s(start), countIn), epoch: e + 1)]) {
            $0.lastStart = F.s(start)
            $0.epoch = e + 1
            $0.transport = .countingDown(Countdown(remaining: beats, origin: .stopped, firstCount: firstCount, total: beats))
        }
    }

    @Test func withoutAGridACountInOfBeatsCountsThatManySeconds() {
        var store = store(Settings(countdownBeats: 4), grid: nil)
        let e = store.state.epoch
        store.send(.buttonPressed(.play), [.audio(.play(from: 0, countdown: 4), epoch: e + 1)]) {
            $0.lastStart = 0
            $0.epoch = e + 1
            $0.transport = .countingDown(Countdown(remaining: 4, origin: .stopped))
        }
    }

    @Test func countAgainCountsBeatsBeforeEachRepeatToA() {
        var store = store(Settings(countdownBeforeRepeat: true, countdownBeats: 8, loopSnap: .beat), playingAt: 2.1)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        store.state.position = F.s(4.4)
        let e = store.state.epoch
        let loop = ABLoop(a: F.s(2.25), b: F.s(4.25))
        let countIn = CountIn(beats: 8, beatFrames: 24_000, lead: 0, firstCount: 5)
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: loop.a..<loop.b, countdownBeforeRepeat: 8, countInBeforeRepeat: countIn)),
                   epoch: e),
            .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: loop)),
        ]) {
            $0.loop = .ab(loop)
            $0.routines[0].parts[0].savedLoop = loop
        }
        // The repeat's first count is reported while playing: the screen counts from 5.
        store.send(F.report(store.state, .looped)) {
            $0.position = loop.a
            $0.loopPass = 2
        }
        store.send(F.report(store.state, .countdownTick(remaining: 7))) {
            $0.transport = .countingDown(Countdown(remaining: 8, origin: .playing, firstCount: 5, total: 8))
        }
    }

    // MARK: - Loops that keep the beat

    @Test(arguments: [
        (LoopSnap.beat, 2.1, 4.4, 2.25, 4.25),
        (LoopSnap.eight, 3.0, 9.0, 4.25, 8.25),
        (LoopSnap.off, 2.1, 4.4, 2.1, 4.4),
    ])
    func loopMarksSnap(snap: LoopSnap, pressA: Double, pressB: Double, a: Double, b: Double) {
        var store = store(Settings(loopSnap: snap), playingAt: pressA)
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(a))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        store.state.position = F.s(pressB)
        let e = store.state.epoch
        let loop = ABLoop(a: F.s(a), b: F.s(b))
        store.send(.buttonPressed(.loop), [
            .audio(.setLoop(LoopRegion(range: loop.a..<loop.b)), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: loop)),
        ]) {
            $0.loop = .ab(loop)
            $0.routines[0].parts[0].savedLoop = loop
        }
    }

    @Test func twoPressesOnTheSameBeatAreTooShort() {
        var store = store(Settings(loopSnap: .beat), playingAt: 2.1)
        _ = Rules.reduce(&store.state, .buttonPressed(.loop))
        store.state.position = F.s(2.4)
        store.send(.buttonPressed(.loop)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Loop too short"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
        #expect(store.state.loop == .markedA(F.s(2.25)))
    }

    @Test func aMarkBeforeTheFirstBeatSnapsToABeatInsideThePart() {
        var store = store(Settings(loopSnap: .eight), playingAt: 0.05)
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(0.25))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
    }

    // MARK: - The encoder by beats

    @Test(arguments: [
        (TurnUnit.beats, 2.1, 1, 2.75), (TurnUnit.beats, 2.1, -2, 1.25), (TurnUnit.eights, 2.1, 1, 4.25),
        (TurnUnit.eights, 5.0, -1, 0.25), (TurnUnit.seconds, 2.1, 1, 3.1),
    ])
    func theEncoderStepsByBeatsOrEights(unit: TurnUnit, from: Double, detents: Int, to: Double) {
        var store = store(Settings(turnBy: unit), playingAt: from)
        let e = store.state.epoch
        store.send(.encoderTurned(detents), [.audio(.seek(to: F.s(to)), epoch: e + 1)]) {
            $0.position = F.s(to)
            $0.epoch = e + 1
        }
    }

    // MARK: - One here

    private func openOneHere(_ store: inout TestStore) {
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        _ = Rules.reduce(&store.state, .encoderTurned(Menu.Item.allCases.firstIndex(of: .oneHere)!))
        #expect(store.state.menu == Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .oneHere)!))
    }

    @Test func oneHereMakesTheNearestBeatTheOneAndKeepsIt() {
        var store = store(playingAt: 5.3)
        openOneHere(&store)
        // Beat 10 from the old "1" (5.25 s) becomes a "1".
        let moved = BeatGrid(beatFrames: 24_000, one: F.s(5.25), origin: .performer)
        store.send(.buttonPressed(.select), [
            .persist(.grid(routine: "Salsa", part: 0, partTitle: "Part 1", grid: moved)),
        ]) {
            $0.menu = nil
            $0.routines[0].parts[0].grid = moved
        }
        #expect(moved.place(of: F.s(5.3)) == (eight: 2, beat: 1) || moved.place(of: F.s(5.3)).beat == 1)
    }

    @Test func oneHereOnAPartWithoutABeatSaysSo() {
        var store = store(grid: nil, playingAt: 5.3)
        openOneHere(&store)
        store.send(.buttonPressed(.select)) {
            $0.menu = nil
            $0.notice = ShownNotice(notice: Notice(.info, ["No beat grid"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    // MARK: - Settings

    @Test func theCountdownMenuOffersBeatsAfterTheSeconds() {
        var store = store()
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        _ = Rules.reduce(&store.state, .encoderTurned(Menu.Item.allCases.firstIndex(of: .countdown)!))
        _ = Rules.reduce(&store.state, .buttonPressed(.select))
        let e = store.state.epoch
        let seconds = Settings.countdownChoices.count
        store.send(.encoderTurned(seconds), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.settings.countdownBeats = 4
        }
        store.send(.encoderTurned(1), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.settings.countdownBeats = 8
        }
        store.send(.encoderTurned(-2), [.audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e)]) {
            $0.settings.countdown = 20
            $0.settings.countdownBeats = 0
        }
    }

    @Test func aRoutinesCountdownInSecondsIsInForceOverACountInOfBeatsWhichStaysSet() {
        var state = PlayerState(settings: Settings(countdownBeats: 8))
        _ = Rules.reduce(&state, .routinesLoaded([F.tango]))
        #expect(state.countdownSeconds == 5 && state.countdownBeats == 0)
        #expect(state.settings == Settings(countdownBeats: 8))
    }
}
