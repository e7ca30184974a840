import Testing
import SegmanceCore
@testable import SegmanceScreen

/// Issue 25: the clock keeps its length on a part with a beat, the place in the eights is
/// labelled (`E3 B5`), and the moves view's number (`#2`) is not a part's (`2/3`).
@Suite(.tags(.unit)) struct CounterScreenTests {
    typealias S = ScreenSnapshotTests

    /// Groove (32 s) at 12.3 s with a 120 BPM beat whose first "1" is at 2.25 s: beat 21
    /// from it, the fifth of eight 3.
    static func beat(_ change: (inout PlayerState) -> Void = { _ in }) -> PlayerState {
        S.state {
            $0.routines[0].parts[1].grid = BeatGrid(beatFrames: 24_000, one: S.s(2.25), origin: .manifest)
            change(&$0)
        }
    }

    @Test func onAPartWithABeatTheClockKeepsItsLengthAndThePlaceIsLabelled() {
        #expect(Screen.render(Self.beat(), columns: 16, rows: 2).text == ["▶ 2/3 Groove    ", "0:12/0:32  E3 B5"])
        #expect(Screen.render(Self.beat(), columns: 20, rows: 4).text == [
            "Street Jam          ", "▶ 2/3 Groove        ", "0:12 E3 B5 █▌   0:32", "♪ 3-ball cascade - e",
        ])
        // A pickup before the first "1" is eight 0 (1 s: three beats before it, the sixth).
        let pickup = Self.beat { $0.position = S.s(1) }
        #expect(Screen.render(pickup, columns: 16, rows: 2).text[1] == "0:01/0:32  E0 B6")
    }

    /// On 16 columns the loop's pass or a speed other than 100 % takes the place's room,
    /// never the length's; 20×4 keeps the place on the clock's row.
    @Test(arguments: [
        (LoopMode.off, 100, "0:12/0:32  E3 B5"),
        (.ab(ABLoop(a: S.s(10.25), b: S.s(14.25))), 100, "0:12/0:32    ⟲x2"),
        (.part, 100, "0:12/0:32    ⟲x2"),
        (.off, 75, "0:12/0:32    75%"),
    ])
    func theLoopsPassOrTheSpeedTakesThePlacesRoomNotTheLength(loop: LoopMode, speed: Int, row: String) {
        let state = Self.beat { $0.loop = loop; $0.loopPass = 2; $0.speedPercent = speed }
        #expect(Screen.render(state, columns: 16, rows: 2).text[1] == row)
        #expect(Screen.render(state, columns: 20, rows: 4).text[2] == "0:12 E3 B5 █▌   0:32")
    }

    /// A long part: eight 113 still fits beside the whole clock, without its space on 16
    /// columns (`E113B5`); every row is exactly the display's width.
    @Test func aLongPartsPlaceFitsBesideTheWholeClock() {
        let state = S.state {
            $0.routines[0].parts[1].length = S.s(500)
            $0.routines[0].parts[1].grid = BeatGrid(beatFrames: 24_000, one: 0, origin: .manifest)
            $0.position = S.s(450.1)
        }
        let small = Screen.render(state, columns: 16, rows: 2), large = Screen.render(state, columns: 20, rows: 4)
        #expect(small.text[1] == "7:30/8:20 E113B5")
        #expect(large.text[2] == "7:30 E113 B5 █▌ 8:20")
        #expect(small.cells.count == 32 && large.cells.count == 80)
    }

    /// The frame changes at the next beat (5 ms early) while the place shows, and not for
    /// the beat while the loop's pass covers it on 16 columns.
    @Test func theFrameFollowsTheBeatOnlyWhileThePlaceShows() {
        let next = S.s(12.75) - FramePosition(BeatGrid.shownBeatTolerance * Double(S.rate))
        #expect(Screen.render(Self.beat(), columns: 16, rows: 2).changesAtPosition == next)
        let looping = Self.beat { $0.loop = .part; $0.loopPass = 1 }
        #expect(Screen.render(looping, columns: 16, rows: 2).changesAtPosition == nil)
    }

    /// The moves view numbers a move `#2`: no `n/m` on it, which is how a part is numbered.
    @Test(arguments: [(16, 2), (20, 4)])
    func theMovesNumberIsNotAPartNumber(columns: Int, rows: Int) {
        let state = S.state { $0.view = .moves; $0.moveCursor = 1 }
        let text = Screen.render(state, columns: columns, rows: rows).text
        #expect(text[0].hasPrefix("▶ #2 3-ball"), "\(text)")
        if rows == 4 { #expect(text[2].hasPrefix("♪ #3 Spin out"), "\(text)") }
        #expect(!text.contains { $0.contains(/[0-9]\/[0-9]/) }, "\(text)")
        // The now-playing screen keeps `2/3` for the part.
        #expect(Screen.render(S.state(), columns: columns, rows: rows).text.contains { $0.contains("▶ 2/3 Groove") })
    }
}
