import Testing
import SegmanceCore
@testable import SegmanceScreen

/// Snapshots of every screen at 16×2 and 20×4, written out literally.
@Suite(.tags(.unit)) struct ScreenSnapshotTests {
    static let rate: Int64 = 48_000
    static func s(_ seconds: Double) -> FramePosition { FramePosition(seconds * Double(rate)) }

    static let moves = [
        Move(type: MoveType("Dance"), name: "Box step"),
        Move(type: MoveType("Juggle"), name: "3-ball cascade", note: "eyes up", cue: s(8)),
        Move(type: MoveType("Transition"), name: "Spin out", cue: s(24.5)),
    ]
    static let routine = Routine(title: "Street Jam", subtitle: "Demo", parts: [
        Part(title: "Intro", audio: AudioReference("a"), length: s(16)),
        Part(title: "Groove", audio: AudioReference("a"), length: s(32), moves: moves),
        Part(title: "Finale", audio: AudioReference("a"), length: s(24)),
    ])

    /// Playing part 2 at 0:12, clock at 0 (marquees at rest).
    static func state(_ change: (inout PlayerState) -> Void = { _ in }) -> PlayerState {
        var state = PlayerState(routines: [routine])
        state.partIndex = 1
        state.position = s(12.3)
        state.transport = .playing
        change(&state)
        return state
    }

    @Test func nowPlaying16x2() {
        #expect(Screen.render(Self.state(), columns: 16, rows: 2).text == [
            "▶ 2/3 Groove    ",
            "0:12/0:32       ",
        ])
    }

    @Test func nowPlaying20x4() {
        #expect(Screen.render(Self.state(), columns: 20, rows: 4).text == [
            "Street Jam          ",
            "▶ 2/3 Groove        ",
            "0:12 ███▌       0:32",
            "♪ 3-ball cascade - e",
        ])
    }

    @Test(arguments: [
        (LoopMode.off, "▶ 2/3 Groove    "), (.part, "▶ 2/3 Groove   ⟲"),
        (.markedA(s(10)), "▶ 2/3 Groove   Ⓐ"), (.ab(ABLoop(a: s(10), b: s(14))), "▶ 2/3 Groove  ⒶⒷ"),
    ])
    func loopMarkers(loop: LoopMode, row: String) {
        #expect(Screen.render(Self.state { $0.loop = loop }, columns: 16, rows: 2).text[0] == row)
    }

    @Test(arguments: [
        (Transport.playing, Glyph.play), (.paused, .pause), (.stopped, .stop),
        (.countingDown(Countdown(remaining: 2, origin: .playing)), .play),
    ])
    func theSymbolFollowsTheTransport(transport: Transport, glyph: Glyph) {
        #expect(Screen.transportGlyph(transport) == glyph)
        if case .countingDown = transport { return }
        for (columns, rows) in [(16, 2), (20, 4)] {
            let frame = Screen.render(Self.state { $0.transport = transport }, columns: columns, rows: rows)
            #expect(frame.row(rows == 4 ? 1 : 0)[0] == glyph.rawValue)
            let moves = Screen.render(Self.state { $0.transport = transport; $0.view = .moves }, columns: columns, rows: rows)
            #expect(moves.row(0)[0] == glyph.rawValue)
        }
    }

    @Test func countdownBothSizes() {
        let state = Self.state { $0.transport = .countingDown(Countdown(remaining: 3, origin: .stopped)) }
        #expect(Screen.render(state, columns: 16, rows: 2).text == [
            "Ready in     ≣≣█",
            "Groove       ▄▄█",
        ])
        #expect(Screen.render(state, columns: 20, rows: 4).text == [
            "Street Jam          ",
            "Ready in         ≣≣█",
            "                 ▄▄█",
            "2/3 Groove          ",
        ])
    }

    @Test func movesViewFollowsTheCue() {
        let before = Self.state { $0.view = .moves; $0.position = Self.s(3) }
        #expect(Screen.render(before, columns: 16, rows: 2).text == [
            "▶ #1 Box step   ",
            "Dance           ",
        ])
        let after = Self.state { $0.view = .moves; $0.position = Self.s(8) }
        #expect(Screen.render(after, columns: 20, rows: 4).text == [
            "▶ #2 3-ball cascade ",
            "0:08 Juggle: eyes up",
            "♪ #3 Spin out       ",
            "0:24 Transition     ",
        ])
    }

    @Test func menuPagesBothSizes() {
        let main = Self.state { $0.menu = Menu(page: .main, cursor: 1); $0.settings.countdown = 5 }
        #expect(Screen.render(main, columns: 16, rows: 2).text == [
            " Routines       ",
            ">Countdown   5 s",
        ])
        #expect(Screen.render(main, columns: 20, rows: 4).text == [
            " Routines           ",
            ">Countdown       5 s",
            " Count again     Off",
            " Part end       Stop",
        ])
        let scrolled = Self.state { $0.menu = Menu(page: .main, cursor: 4) }
        #expect(Screen.render(scrolled, columns: 16, rows: 2).text == [
            " Part end   Stop",
            ">Volume      80%",
        ])
        let editing = Self.state { $0.menu = Menu(page: .editing(.volume)) }
        #expect(Screen.render(editing, columns: 16, rows: 2).text == [
            "Volume          ",
            "    < 80% >     ",
        ])
        let routines = Self.state { $0.menu = Menu(page: .routines, cursor: 0) }
        #expect(Screen.render(routines, columns: 16, rows: 2).text == [
            ">Street Jam  1/1",
            "                ",
        ])
    }

    @Test func noticesAndProblems() {
        let info = Self.state { $0.notice = ShownNotice(notice: Notice(.info, ["Stick found", "2 routines"]), until: 1) }
        #expect(Screen.render(info, columns: 16, rows: 2).text == ["Stick found     ", "2 routines      "])
        let problem = Self.state {
            $0.notice = ShownNotice(notice: Notice(.problem, ["Salsa/02.m4a", "unsupported"]), until: 1)
        }
        #expect(Screen.render(problem, columns: 20, rows: 4).text == [
            "!Salsa/02.m4a       ", "unsupported         ", "                    ", "                    ",
        ])
        // An expired notice no longer shows.
        let expired = Self.state { $0.notice = ShownNotice(notice: Notice(.info, ["x"]), until: 0) }
        #expect(Screen.render(expired, columns: 16, rows: 2).text[0] == "▶ 2/3 Groove    ")
    }

    @Test func emptyLibrary() {
        #expect(Screen.render(PlayerState(), columns: 16, rows: 2).text == ["No routines     ", "Insert a stick  "])
    }

    @Test(arguments: [(16, 2), (20, 4)])
    func everyCellIsAnLCDCode(columns: Int, rows: Int) {
        let states = [Self.state(), Self.state { $0.view = .moves }, Self.state { $0.menu = Menu() },
                      Self.state { $0.loop = .ab(ABLoop(a: 0, b: Self.s(20))); $0.position = Self.s(15.5) },
                      Self.state { $0.routines[0].parts[1].title = "Señorita “Olé” — ñandú" }]
        for state in states {
            let frame = Screen.render(state, columns: columns, rows: rows)
            #expect(frame.cells.count == columns * rows)
            #expect(frame.cells.allSatisfy { $0 <= 7 || (0x20...0x7E).contains($0) || $0 == 0xFF })
        }
    }
}

@Suite(.tags(.unit)) struct ScreenPiecesTests {
    @Test(arguments: [("Señorita", "Senorita"), ("Straße", "Strasse"), ("“Olé” — go", "\"Ole\" - go"),
                      ("Ça va?", "Ca va?"), ("日本", "??"), ("tab\there", "tab here")])
    func foldsToASCII(text: String, expected: String) {
        #expect(LCDText.bytes(text) == Array(expected.utf8))
    }

    @Test func marqueeRestsScrollsAndWraps() {
        let text = Array("ABCDEFGHIJ".utf8) // 10 characters in a field of 6
        func at(_ ms: Int64) -> String { String(decoding: Marquee.window(text, width: 6, now: ms * 1_000_000), as: UTF8.self) }
        #expect(at(0) == "ABCDEF")
        #expect(at(1499) == "ABCDEF")
        #expect(at(1500 + 400) == "BCDEFG")
        #expect(at(1500 + 4 * 400) == "EFGHIJ")
        #expect(at(1500 + 8 * 400) == "IJ   A")
        // One cycle = rest + (10 + 3) steps: back at rest.
        #expect(at(1500 + 13 * 400 + 10) == "ABCDEF")
        #expect(Marquee.window(Array("short".utf8), width: 8, now: 123_456_789) == Array("short   ".utf8))
    }

    /// `nextStep` is exactly the next time the window shows something else: the same
    /// window up to a nanosecond before it, another one at it. Times across the rest, the
    /// steps and the wrap round the cycle (1500 + 13 × 400 ms), and negative times.
    @Test(arguments: [0, 1, 1_499, 1_500, 1_899, 1_900, 2_299, 3_000, 6_299, 6_300, 6_699, 6_700, 13_400, -1, -5_000] as [Int64])
    func marqueeNextStepIsTheNextChange(ms: Int64) throws {
        let text = Array("ABCDEFGHIJ".utf8)
        let now = ms * 1_000_000
        let next = try #require(Marquee.nextStep(count: text.count, width: 6, now: now))
        #expect(next > now)
        #expect(next - now <= Marquee.restNanoseconds + Marquee.stepNanoseconds)
        #expect(Marquee.window(text, width: 6, now: next - 1) == Marquee.window(text, width: 6, now: now))
        #expect(Marquee.window(text, width: 6, now: next) != Marquee.window(text, width: 6, now: now))
    }

    @Test func aTextThatFitsNeverMoves() {
        #expect(Marquee.nextStep(count: 6, width: 6, now: 42) == nil)
        #expect(Marquee.nextStep(count: 3, width: 6, now: 42) == nil)
    }

    /// A frame says when time alone changes it, so the daemon sleeps until then: a still
    /// screen never; a long title at its next step; a notice at its end (or a marquee step
    /// in it, whichever is first). Equality ignores it.
    @Test func aFrameExpiresWhenTimeAloneChangesIt() {
        let still = Screen.render(ScreenSnapshotTests.state(), columns: 16, rows: 2)
        #expect(still.expires == nil)

        let long = ScreenSnapshotTests.state {
            $0.routines[0].parts[1].title = "A very long part title"
            $0.now = 1_000_000_000
        }
        let scrolling = Screen.render(long, columns: 16, rows: 2)
        #expect(scrolling.expires == 1_900_000_000) // the rest, then the first step

        let notice = ScreenSnapshotTests.state {
            $0.notice = ShownNotice(notice: Notice(.info, ["Stick found"]), until: 2_000_000_000)
            $0.now = 1_000_000_000
        }
        #expect(Screen.render(notice, columns: 16, rows: 2).expires == 2_000_000_000)

        var later = scrolling
        later.expires = nil
        #expect(later == scrolling)
    }

    /// Playing on changes a frame at the next move's cue and the next half cell of the bar
    /// (its clock's seconds are the audio side's to report): 20×4 now playing at 12.3 s of a
    /// 32 s part, bar 10 cells = 1.6 s a half cell, so 12.8 s comes before the cue at 24.5 s;
    /// the moves view changes at the cue; 16×2 now playing has neither.
    @Test func aFrameSaysWhereThePositionChangesIt() {
        let s = ScreenSnapshotTests.s
        #expect(Screen.render(ScreenSnapshotTests.state(), columns: 20, rows: 4).changesAtPosition == s(12.8))
        #expect(Screen.render(ScreenSnapshotTests.state { $0.view = .moves }, columns: 16, rows: 2)
            .changesAtPosition == s(24.5))
        #expect(Screen.render(ScreenSnapshotTests.state(), columns: 16, rows: 2).changesAtPosition == nil)
        // Past the last cue and at the end of the bar, nothing is left to change.
        let end = ScreenSnapshotTests.state { $0.position = s(32) }
        #expect(Screen.render(end, columns: 20, rows: 4).changesAtPosition == nil)
    }

    /// `nextBarStep` is exactly where the bar grows: the same bar a frame before it, one
    /// more half cell at it.
    @Test(arguments: [0, 1, 4_799, 4_800, 47_999, 95_999] as [Int64])
    func barStepIsWhereTheBarGrows(position: Int64) throws {
        let length: Int64 = 96_000, width = 10
        let step = try #require(Screen.nextBarStep(position, of: length, width: width))
        #expect(step > position)
        #expect(Screen.bar(step - 1, of: length, width: width) == Screen.bar(position, of: length, width: width))
        #expect(Screen.bar(step, of: length, width: width) != Screen.bar(position, of: length, width: width))
        #expect(Screen.nextBarStep(length, of: length, width: width) == nil)
    }

    @Test func diffWritesOnlyChangedRuns() {
        var a = Frame(columns: 16, rows: 2)
        a.put(Array("0:12/0:32".utf8), row: 1)
        var b = a
        b.put(Array("3".utf8), row: 1, column: 3)
        b.put([Glyph.loop.rawValue], row: 0, column: 15)
        #expect(b.diff(from: a) == [Frame.Run(row: 0, column: 15, bytes: [3]), Frame.Run(row: 1, column: 3, bytes: Array("3".utf8))])
        #expect(b.diff(from: b).isEmpty)
        #expect(b.diff(from: nil).count == 2) // a whole redraw: one run a row
    }

    @Test(arguments: [(0.0, "          "), (0.5, "█████     "), (0.55, "█████▌    "), (1.0, "██████████")])
    func progressBarInHalfCells(fraction: Double, expected: String) {
        var f = Frame(columns: 10, rows: 1)
        f.put(Screen.bar(FramePosition(fraction * 1000), of: 1000, width: 10), row: 0)
        #expect(f.text[0] == expected)
    }

    @Test func glyphsFitTheCGRAM() {
        #expect(Glyph.allCases.count <= 8)
        for glyph in Glyph.allCases {
            #expect(glyph.pattern.count == 8)
            #expect(glyph.pattern.allSatisfy { $0 & 0xE0 == 0 })
        }
        #expect(Set(Glyph.allCases.map(\.pattern)).count == Glyph.allCases.count)
    }
}

/// The stick offer and the import's progress.
@Suite(.tags(.unit)) struct StickScreenTests {
    @Test func theOfferAsksForAPush() {
        var state = ScreenSnapshotTests.state { $0.transport = .stopped }
        state.stick = StickOffer(path: "/media/usb0", routines: 2)
        // "Stick: 2 routines" is 17 cells: the count alone rather than a word cut.
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["2 routines      ", "Push to import  "])
        state.stick = StickOffer(path: "/media/usb0", routines: 1)
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["Stick: 1 routine", "Push to import  "])
        state.stick = StickOffer(path: "/media/usb0", routines: 2)
        #expect(Screen.render(state, columns: 20, rows: 4).text == [
            "Stick: 2 routines   ", "Push to import      ", "                    ", "Hold: not now       ",
        ])
    }

    @Test func progressShowsWhenNotPlaying() {
        var state = ScreenSnapshotTests.state { $0.transport = .paused }
        state.importing = ImportProgress(routine: 2, count: 3, title: "Tango", percent: 45)
        #expect(Screen.render(state, columns: 16, rows: 2).text == ["Import 2/3   45%", "Tango           "])
        #expect(Screen.render(state, columns: 20, rows: 4).text[3] == "█████████           ")
        state.transport = .playing
        #expect(Screen.render(state, columns: 16, rows: 2).text[0] == "▶ 2/3 Groove    ")
    }
}
