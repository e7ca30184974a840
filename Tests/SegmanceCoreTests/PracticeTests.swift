import Testing
@testable import SegmanceCore

/// A loop's lead-in and its speed ramp (issue 29, items 1 and 2): what the manifest and the
/// menu write, the loop the audio side is given, the counter and the speed on each seam.
@Suite(.tags(.unit)) struct PracticeTests {
    typealias F = Fixture
    static let ramp = SpeedRamp(from: 70, step: 10, every: 1, to: 100)
    /// 120 BPM: a beat is half a second.
    static let grid = BeatGrid(beatFrames: 24_000, one: 0, origin: .manifest)

    @Test(arguments: [("2 beats", LeadIn(2, .beats)), ("1 beat", LeadIn(1, .beats)), ("1 eight", LeadIn(1, .eights)),
                      ("2 eights", LeadIn(2, .eights)), ("2 s", LeadIn(2, .seconds)), ("3  seconds", LeadIn(3, .seconds)),
                      ("0 beats", nil), ("17 s", nil), ("2 bars", nil), ("beats", nil), ("2", nil), ("-1 s", nil)])
    func aLeadInReadsCountAndUnit(text: String, expected: LeadIn?) {
        #expect(LeadIn(text: text) == expected)
        if let expected { #expect(LeadIn(text: expected.description) == expected) }
    }

    @Test func aLeadInInBeatsFollowsThePartsBeatAndASecondWithoutOne() {
        #expect(LeadIn(2, .beats).frames(grid: Self.grid, sampleRate: F.rate) == F.s(1))
        #expect(LeadIn(1, .eights).frames(grid: Self.grid, sampleRate: F.rate) == F.s(4))
        #expect(LeadIn(2, .beats).frames(grid: nil, sampleRate: F.rate) == F.s(2))
        #expect(LeadIn(2, .seconds).frames(grid: Self.grid, sampleRate: F.rate) == F.s(2))
    }

    @Test(arguments: [
        (SpeedRamp(from: 70, step: 10, every: 1, to: 100), [70, 80, 90, 100, 100, 100]),
        (SpeedRamp(from: 70, step: 5, every: 2, to: 80), [70, 70, 75, 75, 80, 80]),
        (SpeedRamp(from: 50, step: 20, every: 1, to: 100), [50, 70, 90, 100, 100, 100]),
    ])
    func aRampClimbsByItsStepEveryNPassesUpToItsTop(ramp: SpeedRamp, speeds: [Int]) {
        #expect((1...6).map(ramp.speed(ofPass:)) == speeds)
        #expect(SpeedRamp(stored: ramp.description) == ramp)
    }

    @Test(arguments: [(72, 5, 1, 100, "'from' = 72"), (70, 5, 1, 160, "'to' = 160"), (90, 5, 1, 80, "above 'from'"),
                      (70, 3, 1, 100, "'step' = 3"), (70, 5, 0, 100, "'every' = 0"), (70, 0, 1, 100, "'step' = 0")])
    func aRampThatIsNoneSaysWhy(from: Int, step: Int, every: Int, to: Int, says: String) {
        let problem = SpeedRamp.problem(from: from, step: step, every: every, to: to)
        #expect(problem?.contains(says) == true, "\(problem ?? "none")")
        #expect(SpeedRamp(stored: "\(from),\(step),\(every),\(to)") == nil)
    }

    /// The menu's *Lead-in* on a part whose loop is on: the audio side gets the loop with its
    /// lead-in at once; leaving the entry keeps it with the part; a seam counts a pass.
    @Test func theMenusLeadInGoesToTheLoopAtOnceAndIsKeptWithThePart() {
        var part = F.part(1, loop: ABLoop(a: F.s(10), b: F.s(18)))
        part.grid = Self.grid
        var store = TestStore(F.loaded(routines: [Routine(title: "Salsa", parts: [part])]))
        let entry = Menu.Item.allCases.firstIndex(of: .leadIn)!
        store.state.menu = Menu(page: .main, cursor: entry)
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .editing(.leadIn), cursor: 0) }
        let e = store.state.epoch
        // Off -> 1 beat -> 2 beats: one second at 120 BPM.
        store.send(.encoderTurned(2), [
            .audio(.setLoop(LoopRegion(range: F.s(10)..<F.s(18), leadIn: F.s(1))), epoch: e),
            .audio(.setNext(nil), epoch: e),
        ]) { $0.routines[0].parts[0].leadIn = LeadIn(2, .beats) }
        store.send(.buttonPressed(.select), [
            .persist(.partPractice(routine: "Salsa", part: 0, partTitle: "Part 1", leadIn: LeadIn(2, .beats),
                                   ramp: nil)),
        ]) { $0.menu = Menu(page: .main, cursor: entry) }
        store.state.menu = nil
        store.state.transport = .playing
        // Each repeat from A - 1 s: where the clock shows the pass begins.
        store.send(F.report(store.state, .looped)) {
            $0.loopPass = 2
            $0.position = F.s(9)
        }
        store.send(F.report(store.state, .looped)) { $0.loopPass = 3 }
    }

    /// A lead-in never reaches before the part's start: a loop at 0.5 s with 2 s leads in from 0.
    @Test func aLeadInStopsAtThePartsStart() {
        var part = F.part(1, loop: ABLoop(a: F.s(0.5), b: F.s(4)))
        part.leadIn = LeadIn(2, .seconds)
        var state = F.loaded(routines: [Routine(title: "Salsa", parts: [part])])
        let effects = LoopRules.loopEffects(&state)
        #expect(effects.first == .audio(.setLoop(LoopRegion(range: F.s(0.5)..<F.s(4), leadIn: F.s(0.5))),
                                        epoch: state.epoch))
        #expect(LoopRules.leadInFrames(ABLoop(a: F.s(3), b: F.s(4)), state) == F.s(2))
    }

    /// A ramp: the loop's first pass at `from`, each seam the next speed (the audio side changes
    /// it there; the screen follows the report), then it stays; the last pass of *Stop after*
    /// starts it over; clearing the loop gives the part its own speed back.
    @Test func aRampStartsAtItsFirstSpeedClimbsOnEachSeamAndResetsWhenTheLoopGoes() {
        var part = F.part(1)
        part.ramp = Self.ramp
        var store = TestStore(F.loaded(routines: [Routine(title: "Salsa", parts: [part])]))
        store.state.transport = .playing
        store.state.position = F.s(10)
        let e = store.state.epoch
        store.send(.buttonPressed(.loop)) {
            $0.loop = .markedA(F.s(10))
            $0.loopTimesShownUntil = $0.now + LoopTimeRules.shownDuration
        }
        store.state.position = F.s(14)
        let loop = ABLoop(a: F.s(10), b: F.s(14))
        store.send(.buttonPressed(.loop), [
            .audio(.setSpeed(70), epoch: e),
            .audio(.setLoop(LoopRegion(range: loop.a..<loop.b, ramp: Self.ramp)), epoch: e),
            .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: loop)),
        ]) {
            $0.loop = .ab(loop)
            $0.speedPercent = 70
            $0.routines[0].parts[0].savedLoop = loop
        }
        for (pass, speed) in [(2, 80), (3, 90), (4, 100), (5, 100), (6, 100)] {
            store.send(F.report(store.state, .looped)) {
                $0.loopPass = pass
                $0.speedPercent = speed
                $0.position = loop.a
            }
        }
        store.send(F.report(store.state, .loopFinished), [
            .audio(.setSpeed(70), epoch: e),
            .persist(.resume(ResumePoint(routine: "Salsa", part: 0, partTitle: "Part 1", position: loop.a))),
        ]) {
            $0.transport = .stopped
            $0.loopPass = 1
            $0.speedPercent = 70
        }
        store.send(.buttonPressed(.loop), [
            .audio(.setSpeed(100), epoch: e),
            .audio(.setLoop(nil), epoch: e), .audio(.setNext(nil), epoch: e),
            .persist(.savedLoop(routine: "Salsa", part: 0, partTitle: "Part 1", loop: nil)),
        ]) {
            $0.loop = .off
            $0.speedPercent = 100
            $0.routines[0].parts[0].savedLoop = nil
            $0.loopTimesShownUntil = nil
        }
    }

    /// The menu's *Ramp*: chosen on a loop that plays, the loop starts over at its first speed;
    /// turned back to Off, the part's own speed.
    @Test func theMenusRampStartsTheLoopOverAndOffGivesThePartsSpeedBack() {
        let part = F.part(1, loop: ABLoop(a: F.s(10), b: F.s(18)))
        var store = TestStore(F.loaded(routines: [Routine(title: "Salsa", parts: [part])]))
        store.state.menu = Menu(page: .editing(.ramp), cursor: 0)
        store.state.loopPass = 3
        let e = store.state.epoch
        let first = SpeedRamp.choices[0]
        store.send(.encoderTurned(1), [
            .audio(.setSpeed(first.from), epoch: e),
            .audio(.setLoop(LoopRegion(range: F.s(10)..<F.s(18), ramp: first)), epoch: e),
            .audio(.setNext(nil), epoch: e),
        ]) {
            $0.routines[0].parts[0].ramp = first
            $0.speedPercent = first.from
            $0.loopPass = 1
        }
        store.send(.encoderTurned(-5), [
            .audio(.setSpeed(100), epoch: e),
            .audio(.setLoop(LoopRegion(range: F.s(10)..<F.s(18))), epoch: e),
            .audio(.setNext(nil), epoch: e),
        ]) {
            $0.routines[0].parts[0].ramp = nil
            $0.speedPercent = 100
        }
    }
}
