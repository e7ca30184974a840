import Testing
@testable import SegmanceCore

/// The problems view: every problem of the last stick, whole, paged with the encoder.
@Suite(.tags(.unit)) struct ProblemsTests {
    typealias F = Fixture
    static let offer = StickOffer(path: "/media/usb0", routines: 1)
    static let problems = [
        FileProblem(file: "Salsa/routine.toml",
                    reason: "line 2: unknown key 'tilte' (known: countdown, part, subtitle, title)"),
        FileProblem(file: "Salsa/02 Broken.mp3", reason: "not an audio file"),
    ]

    @Test(arguments: [16, 20])
    func wrappedLinesFitAndKeepEveryCharacter(columns: Int) {
        for text in ["line 2: unknown key 'tilte' (known: countdown, part, subtitle, title)",
                     "Salsa/A-very-long-folder-name/with/deep/paths.mp3", "x", ""] {
            let lines = ProblemsRules.wrap(text, columns)
            #expect(lines.allSatisfy { $0.count <= columns }, "\(lines)")
            #expect(lines.joined(separator: " ").split(separator: " ").joined() == text.split(separator: " ").joined())
        }
        // Words stay whole where they fit; a path breaks after a "/".
        #expect(ProblemsRules.wrap("Salsa/A-very-long-folder-name/x.mp3", 16)
                == ["Salsa/", "A-very-long-fold", "er-name/x.mp3"])
    }

    @Test func eachProblemStartsOnAPageOfItsOwnWithItsFileFirst() throws {
        let pages = ProblemsRules.pages(Self.problems, DisplaySize(columns: 16, rows: 2))
        #expect(pages.first == ["1 of 2: Salsa/", "routine.toml"])
        #expect(pages.allSatisfy { $0.count <= 2 && $0.allSatisfy { $0.count <= 16 } })
        let second = try #require(pages.firstIndex { $0.first?.hasPrefix("2 of 2") == true })
        #expect(pages[second...].flatMap { $0 } == ["2 of 2: Salsa/02", "Broken.mp3", "not an audio", "file"])
    }

    @Test func anImportKeepsItsProblemsTheSummarySaysHowManyAndTheMenuOpensOnThem() {
        var store = TestStore(F.loaded())
        store.state.display = DisplaySize(columns: 16, rows: 2)
        _ = Rules.reduce(&store.state, .stickInserted(Self.offer))
        _ = Rules.reduce(&store.state, .importRequested)
        for problem in Self.problems {
            store.send(.problemFound(problem)) {
                $0.problems.append(problem)
                $0.problemsUnread = true
            }
        }
        store.send(.importFinished(ImportSummary(added: 1, failed: 0))) {
            $0.importing = nil
            $0.stick = nil
            $0.pendingNotices += [Notice(.info, ["Import done", "1 new"]),
                                  Notice(.problem, ["2 problems", "Menu: Problems"], duration: 4_000_000_000)]
        }
        let entry = Menu.Item.allCases.firstIndex(of: .problems)!
        store.send(.buttonPressed(.select)) {
            $0.notice = nil
            $0.pendingNotices = [Notice(.problem, ["2 problems", "Menu: Problems"], duration: 4_000_000_000)]
            $0.noticesHeldUntil = $0.now + NoticeRules.quietAfterControl
            $0.menu = Menu(page: .main, cursor: entry)
        }
        store.send(.buttonPressed(.select)) {
            $0.menu = Menu(page: .problems, cursor: 0)
            $0.problemsUnread = false
        }
        let count = ProblemsRules.pages(Self.problems, store.state.display).count
        store.send(.encoderTurned(1)) { $0.menu?.cursor = 1 }
        store.send(.encoderTurned(50)) { $0.menu?.cursor = count - 1 }
        store.send(.encoderTurned(-50)) { $0.menu?.cursor = 0 }
        store.send(.buttonPressed(.select)) { $0.menu = Menu(page: .main, cursor: entry) }
        // Read: the menu opens at its top again. The next import starts a new list.
        store.send(.buttonLongPressed(.select)) { $0.menu = nil }
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
        store.send(.buttonLongPressed(.select)) { $0.menu = nil }
        _ = Rules.reduce(&store.state, .stickInserted(Self.offer))
        _ = Rules.reduce(&store.state, .importRequested)
        #expect(store.state.problems.isEmpty)
    }

    @Test func aRefusedStickIsAProblemToo() {
        var store = TestStore(F.loaded())
        let refusal = StickRefusal(device: "sdb2", fileSystem: "apfs", reason: .apfs,
                                   message: "/dev/sdb2 is APFS (a Mac's default format), which Linux cannot read")
        _ = Rules.reduce(&store.state, .stickRefused(refusal))
        #expect(store.state.problems == [FileProblem(file: "sdb2", reason: refusal.message)])
    }

    @Test func withNoProblemsTheEntrySaysSo() {
        var store = TestStore(F.loaded())
        store.state.menu = Menu(page: .main, cursor: Menu.Item.allCases.firstIndex(of: .problems)!)
        store.send(.buttonPressed(.select)) {
            $0.notice = ShownNotice(notice: Notice(.info, ["No problems"], duration: Rules.hintDuration),
                                    until: $0.now + Rules.hintDuration)
        }
    }
}
