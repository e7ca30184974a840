import Testing
@testable import SegmanceCore

/// *Tap tempo* (issue 29): LOOP or the encoder's push, on the entry's page, taps the part's
/// tempo and its "1" at the frames heard; leaving keeps the grid with the part.
@Suite(.tags(.unit)) struct TapTempoTests {
    typealias F = Fixture
    static let row = Menu.Item.allCases.firstIndex(of: .tapTempo)!

    /// Playing part 1 of Salsa (no beat) at 2 s, the menu open on *Tap tempo*.
    private func store(grid: BeatGrid? = nil, settings: Settings = Settings()) -> TestStore {
        var salsa = F.salsa
        salsa.parts[0].grid = grid
        var state = F.loaded(settings, routines: [salsa])
        state.transport = .playing
        state.position = F.s(2)
        state.menu = Menu(page: .main, cursor: Self.row)
        return TestStore(state)
    }

    @Test func eightTapsHalfASecondApartAre120BPMWithTheFirstTapAsTheOne() {
        var store = store()
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .tapping) }
        var taps: [FramePosition] = []
        for k in 0..<8 {
            let heard = F.s(2.1) + FramePosition(k) * 24_000
            taps.append(heard)
            store.send(.heard(heard)) { $0.heard = heard }
            // LOOP taps (the encoder's push does too: every other tap here).
            let button: Button = k % 2 == 0 ? .loop : .select
            store.send(.buttonPressed(button)) {
                $0.heard = nil
                $0.menu = Menu(page: .tapping, taps: taps)
            }
        }
        let grid = BeatGrid(beatFrames: 24_000, one: F.s(2.1), origin: .tapped)
        store.send(.buttonLongPressed(.select),
                   [.persist(.grid(routine: "Salsa", part: 0, partTitle: "Part 1", grid: grid))]) {
            $0.menu = Menu(page: .main, cursor: Self.row)
            $0.routines[0].parts[0].grid = grid
        }
        #expect(grid.bpm(sampleRate: F.rate) == 120)
    }

    @Test func aLaterSessionReplacesTheTappedGrid() {
        let old = BeatGrid(beatFrames: 24_000, one: 1_000, origin: .tapped)
        var store = store(grid: old)
        store.state.menu = Menu(page: .tapping, taps: [100_000, 122_500, 145_000, 167_500])
        let grid = BeatGrid(beatFrames: 22_500, one: 100_000, origin: .tapped)
        store.send(.buttonLongPressed(.select),
                   [.persist(.grid(routine: "Salsa", part: 0, partTitle: "Part 1", grid: grid))]) {
            $0.menu = Menu(page: .main, cursor: Self.row)
            $0.routines[0].parts[0].grid = grid
        }
    }

    @Test func fewerThanFourTapsLeaveTheGridAsItWasAndSaySo() {
        var store = store()
        store.state.menu = Menu(page: .tapping, taps: [100_000, 124_000, 148_000])
        store.send(.buttonLongPressed(.select)) {
            $0.menu = Menu(page: .main, cursor: Self.row)
            $0.notice = ShownNotice(notice: Notice(.info, ["Tap 4 or more"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    @Test func aTapLongAfterTheLastOrBeforeItStartsTheTapsAgain() {
        var store = store()
        store.state.menu = Menu(page: .tapping, taps: [100_000, 124_000])
        store.send(.heard(FramePosition(124_000 + 3 * 48_000 + 1))) { $0.heard = 124_000 + 3 * 48_000 + 1 }
        store.send(.buttonPressed(.loop)) {
            $0.heard = nil
            $0.menu = Menu(page: .tapping, taps: [124_000 + 3 * 48_000 + 1])
        }
        store.send(.heard(50_000)) { $0.heard = 50_000 }
        store.send(.buttonPressed(.loop)) {
            $0.heard = nil
            $0.menu = Menu(page: .tapping, taps: [50_000])
        }
    }

    @Test func tapsNeedTheMusicPlaying() {
        var store = store()
        store.state.transport = .paused
        store.state.menu = Menu(page: .tapping)
        store.send(.buttonPressed(.loop)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Play, then tap"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }

    @Test(arguments: [
        ([0, 24_000, 48_000, 72_000], 24_000.0),
        // One late tap moves the slope by a quarter of its error, not all of it.
        ([0, 24_000, 48_000, 73_200], 24_360.0),
        ([1_000, 23_500, 46_000, 68_500, 91_000], 22_500.0),
    ] as [([FramePosition], Double)])
    func theBeatIsTheLeastSquaresSlopeOfTheTaps(taps: [FramePosition], beat: Double) {
        let grid = TapTempoRules.grid(taps, sampleRate: F.rate)
        #expect(grid.map { abs($0.beatFrames - beat) < 1e-6 } == true, "\(String(describing: grid))")
        #expect(grid?.one == taps[0] && grid?.origin == .tapped)
    }

    @Test func tooFewTapsOrATempoNoDanceHasGiveNoGrid() {
        #expect(TapTempoRules.grid([0, 24_000, 48_000], sampleRate: F.rate) == nil)
        // 15 BPM and 480 BPM.
        #expect(TapTempoRules.grid([0, 192_000, 384_000, 576_000], sampleRate: F.rate) == nil)
        #expect(TapTempoRules.grid([0, 6_000, 12_000, 18_000], sampleRate: F.rate) == nil)
    }

    @Test func aTappedGridIsUsedByTheCountInAndSnappingAndOneHereKeepsItTapped() {
        let tapped = BeatGrid(beatFrames: 24_000, one: 30_000, origin: .tapped)
        var state = F.loaded(Settings(countdownBeats: 4), routines: [F.salsa])
        state.routines[0].parts[0].grid = tapped
        // A start at the "1": four counts of a beat, the music on the beat after the last.
        #expect(BeatRules.countIn(to: 30_000, state) == CountIn(beats: 4, beatFrames: 24_000, lead: 0, firstCount: 5))
        state.settings.loopSnap = .eight
        #expect(BeatRules.snapped(30_000 + 8 * 24_000 + 5_000, state) == 30_000 + 8 * 24_000)
        #expect(tapped.withOne(atBeat: 2).origin == .tapped)
        #expect(tapped.isSetOnTheBox)
    }
}
