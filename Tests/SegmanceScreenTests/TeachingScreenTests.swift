import Testing
import SegmanceCore
@testable import SegmanceScreen

/// The screens of issue 16 at 16×2 and 20×4, written out literally: big digits for the
/// count-in, which routine, the moves, the volume bar, the loop's passes, the light.
@Suite(.tags(.unit)) struct TeachingScreenTests {
    typealias S = ScreenSnapshotTests

    static func state(_ change: (inout PlayerState) -> Void = { _ in }) -> PlayerState { S.state(change) }

    // MARK: Big digits

    @Test func everyNumeralIsThreeCellsByTwoRowsOfThePiecesAndTheFullBlock() {
        let pieces = Set(BigDigitGlyph.allCases.prefix(3).map(\.rawValue) + [Glyph.fullBlock, 0x20])
        var seen = Set<[UInt8]>()
        for digit in 0...9 {
            let cells = BigDigits.cells(digit)
            #expect(cells.top.count == 3 && cells.bottom.count == 3)
            #expect(Set(cells.top + cells.bottom).isSubset(of: pieces))
            seen.insert(cells.top + cells.bottom)
        }
        #expect(seen.count == 10, "two numerals look alike")
        #expect(BigDigits.rows(10).top.count == 7)
    }

    @Test(arguments: [
        (20, ["Ready in ≣≣█ █▀█", "Groove   █▄▄ █▄█"],
         ["Street Jam          ", "Ready in     ≣≣█ █▀█", "             █▄▄ █▄█", "2/3 Groove          "]),
        (1, ["Ready in     ▀█ ", "Groove       ▄█▄"],
         ["Street Jam          ", "Ready in         ▀█ ", "                 ▄█▄", "2/3 Groove          "]),
    ])
    func theCountInInBigDigits(remaining: Int, small: [String], large: [String]) {
        let state = Self.state { $0.transport = .countingDown(Countdown(remaining: remaining, origin: .stopped)) }
        let f16 = Screen.render(state, columns: 16, rows: 2), f20 = Screen.render(state, columns: 20, rows: 4)
        #expect(f16.text == small)
        #expect(f20.text == large)
        #expect(f16.glyphs == .bigDigits && f20.glyphs == .bigDigits)
        #expect(f16.bigNumber == Frame.BigNumber(value: remaining, row: 0, column: 16 - f16.bigNumber!.width,
                                                 width: remaining >= 10 ? 7 : 3))
        #expect(f20.bigNumber?.row == 1)
        // Every other screen keeps the symbols.
        #expect(Screen.render(Self.state(), columns: 16, rows: 2).glyphs == .symbols)
    }

    @Test func theCountInBeforeARepeatShowsThePass() {
        let state = Self.state {
            $0.transport = .countingDown(Countdown(remaining: 2, origin: .playing))
            $0.loop = .part
            $0.loopPass = 2
            $0.settings.loopPasses = 4
        }
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["Ready in     ≣≣█", "⟲2/4 Groove  █▄▄"])
        #expect(Screen.render(state, columns: 20, rows: 4).text == [
            "Street Jam          ", "Ready in         ≣≣█", "⟲2/4             █▄▄", "2/3 Groove          ",
        ])
    }

    @Test func theGlyphSetsFitTheCGRAMAndAreToldApart() {
        for set in GlyphSet.allCases {
            #expect(set.patterns.count == 8)
            #expect(set.patterns.allSatisfy { $0.count == 8 && $0.allSatisfy { $0 < 0x20 } })
            #expect(GlyphSet(patterns: set.patterns) == set)
        }
        #expect(GlyphSet(patterns: Array(repeating: [0, 0, 0, 0, 0, 0, 0, 0], count: 8)) == nil)
    }

    // MARK: Which routine

    @Test func theTitleReplacesTheClockOn16x2ForAMoment() {
        let state = Self.state { $0.titleShownUntil = 3_000_000_000 }
        let frame = Screen.render(state, columns: 16, rows: 2)
        #expect(frame.text == ["▶ 2/3 Groove    ", "Street Jam      "])
        #expect(frame.expires == 3_000_000_000)
        var later = state
        later.now = 3_000_000_000
        #expect(Screen.render(later, columns: 16, rows: 2).text[1] == "0:12/0:32       ")
        // 20×4 always shows it on its first row.
        #expect(Screen.render(state, columns: 20, rows: 4).text[0] == "Street Jam          ")
    }

    @Test func theRoutineListShowsItsPlace() {
        let many = (1...12).map { Routine(title: "Routine \($0)", parts: S.routine.parts) }
        let state = Self.state { $0.routines = many; $0.menu = Menu(page: .routines, cursor: 2) }
        #expect(Screen.render(state, columns: 16, rows: 2).text == [" Routine 2      ", ">Routine 3  3/12"])
        #expect(Screen.render(state, columns: 20, rows: 4).text == [
            " Routine 1          ", " Routine 2          ", ">Routine 3      3/12", " Routine 4          ",
        ])
    }

    // MARK: Moves

    @Test func theEncodersMoveIsShownWithItsCue() {
        let state = Self.state { $0.view = .moves; $0.moveCursor = 2; $0.position = S.s(3) }
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["▶ #3 Spin out   ", "0:24 Transition "])
        let first = Self.state { $0.view = .moves; $0.moveCursor = 0; $0.position = S.s(30) }
        #expect(Screen.render(first, columns: 20, rows: 4).text == [
            "▶ #1 Box step       ", "Dance               ", "♪ #2 3-ball cascade ", "0:08 Juggle: eyes up",
        ])
    }

    @Test func aLongMoveScrolls() {
        let long = Move(type: MoveType("Juggle"), name: "Five-ball cascade into a mess", note: "face the audience")
        var state = Self.state { $0.view = .moves; $0.moveCursor = 0 }
        state.routines[0].parts[1].moves = [long]
        let resting = Screen.render(state, columns: 16, rows: 2)
        #expect(resting.text == ["▶ #1 Five-ball c", "Juggle: face the"])
        #expect(resting.expires == Marquee.restNanoseconds + Marquee.stepNanoseconds)
        state.now = Marquee.restNanoseconds + 2 * Marquee.stepNanoseconds
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["▶ #1 ve-ball cas", "ggle: face the a"])
    }

    // MARK: Volume

    @Test func theVolumeBarWhileItChanges() {
        let state = Self.state { $0.settings.volume = 55; $0.volumeShownUntil = 1_500_000_000 }
        let small = Screen.render(state, columns: 16, rows: 2)
        #expect(small.text == ["Volume       55%", "████████▌       "])
        #expect(small.expires == 1_500_000_000)
        #expect(Screen.render(state, columns: 20, rows: 4).text == [
            "                    ", "Volume           55%", "███████████         ", "                    ",
        ])
    }

    // MARK: Loops that count

    @Test(arguments: [(0, "⟲x3"), (5, "⟲3/5")])
    func theLoopsPassBesideTheClock(passes: Int, counter: String) {
        let state = Self.state {
            $0.loop = .ab(ABLoop(a: S.s(10), b: S.s(14)))
            $0.loopPass = 3
            $0.settings.loopPasses = passes
        }
        let pad = String(repeating: " ", count: 16 - 9 - counter.count)
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["▶ 2/3 Groove  ⒶⒷ", "0:12/0:32" + pad + counter])
        let title = "Street Jam" + String(repeating: " ", count: 20 - 10 - counter.count)
        #expect(Screen.render(state, columns: 20, rows: 4).text[0] == title + counter)
        // No loop, no counter.
        #expect(Screen.render(Self.state(), columns: 16, rows: 2).text[1] == "0:12/0:32       ")
    }

    // MARK: Light

    @Test func theFrameCarriesTheLightAndExpiresWhenItDims() {
        let lit = Self.state { $0.partIndex = 0; $0.settings.lightIdle = 30; $0.lastControl = 0 }
        for (columns, rows) in [(16, 2), (20, 4)] {
            let frame = Screen.render(lit, columns: columns, rows: rows)
            #expect(frame.backlight)
            #expect(frame.expires == 30_000_000_000)
            var dark = lit
            dark.backlight = false
            let off = Screen.render(dark, columns: columns, rows: rows)
            #expect(!off.backlight && off.expires == nil)
            #expect(off != frame, "a dimmed frame is another frame")
            #expect(off.text == frame.text)
        }
    }

    // MARK: Speed (issue 12)

    @Test func aSpeedOtherThanAHundredShowsOnTheNowPlayingScreen() {
        let slow = Self.state { $0.speedPercent = 75 }
        #expect(Screen.render(slow, columns: 16, rows: 2).text == ["▶ 2/3 Groove    ", "0:12/0:32    75%"])
        #expect(Screen.render(slow, columns: 20, rows: 4).text[0] == "Street Jam       75%")
        let fast = Self.state { $0.speedPercent = 150 }
        #expect(Screen.render(fast, columns: 16, rows: 2).text[1] == "0:12/0:32   150%")
        #expect(Screen.render(Self.state(), columns: 16, rows: 2).text[1] == "0:12/0:32       ")
    }
}
