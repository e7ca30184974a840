import Testing
import SegmanceCore
@testable import SegmanceScreen

/// Every menu entry, fixed notice and screen at 16×2 and 20×4 for every value it can take:
/// a label is shown whole (as written or as the abbreviation table has it), never cut
/// inside a word nor scrolled.
@Suite(.tags(.unit)) struct LabelFitTests {
    static let sizes = [(16, 2), (20, 4)]
    static let rate: Int64 = 48_000
    static let part = Part(title: "Groove", audio: AudioReference("a"), length: 30 * rate)
    static let beatPart = Part(title: "Groove", audio: AudioReference("a"), length: 30 * rate,
                               grid: BeatGrid(beatFrames: 24_000, one: 0, origin: .manifest))

    /// Every value of every setting, one state each (the rest at their defaults).
    static var settingStates: [PlayerState] {
        var changes: [(inout Settings) -> Void] = []
        changes += Settings.countdownChoices.map { c in { $0.countdown = c } }
        changes += Settings.countInBeatChoices.map { b in { $0.countdownBeats = b } }
        changes += [true, false].map { v in { $0.countdownBeforeRepeat = v } }
        changes += PartEndBehavior.allCases.map { v in { $0.atPartEnd = v } }
        changes += stride(from: 0, through: 100, by: Settings.volumeStep).map { v in { $0.volume = v } }
        changes += [true, false].map { v in { $0.autoImport = v } }
        changes += Settings.loopPauseChoices.map { v in { $0.loopPause = v } }
        changes += Settings.loopPassesChoices.map { v in { $0.loopPasses = v } }
        changes += Settings.lightIdleChoices.map { v in { $0.lightIdle = v } }
        changes += LoopSnap.allCases.map { v in { $0.loopSnap = v } }
        changes += TurnUnit.allCases.map { v in { $0.turnBy = v } }
        changes += CountVoice.allCases.map { v in { $0.countVoice = v } }
        changes += Settings.stopFadeChoices.map { v in { $0.stopFade = v } }
        var states: [PlayerState] = []
        for change in changes {
            var state = PlayerState(routines: [Routine(title: "Jam", parts: [part])])
            change(&state.settings)
            states.append(state)
        }
        // The part's lead-in and ramp: every choice of the menu.
        var practiced: [Part] = LeadIn.choices.map { var p = part; p.leadIn = $0; return p }
        practiced += SpeedRamp.choices.map { var p = part; p.ramp = $0; return p }
        states += practiced.map { PlayerState(routines: [Routine(title: "Jam", parts: [$0])]) }
        // One here: "No beat" on a part without a beat, "Beat 1" to "Beat 8" on one with.
        for beat in 0..<8 {
            var state = PlayerState(routines: [Routine(title: "Jam", parts: [beatPart])])
            state.position = FramePosition(beat) * 24_000 + 100
            states.append(state)
        }
        return states
    }

    /// Whether each row is the same now and 20 s later: nothing on it scrolls.
    static func stands(_ state: PlayerState, _ columns: Int, _ rows: Int) -> Bool {
        var later = state
        later.now += 20_000_000_000
        return Screen.render(state, columns: columns, rows: rows).text
            == Screen.render(later, columns: columns, rows: rows).text
    }

    @Test(arguments: sizes)
    func everyMenuLabelIsWholeBesideEveryValue(columns: Int, rows: Int) {
        let items = Menu.Item.allCases
        for base in Self.settingStates {
            for cursor in items.indices {
                var state = base
                state.menu = Menu(page: .main, cursor: cursor)
                let frame = Screen.render(state, columns: columns, rows: rows)
                #expect(Self.stands(state, columns, rows), "\(frame.text) scrolls")
                let first = min(max(0, cursor - rows + 1), items.count - rows)
                for (r, text) in frame.text.enumerated() {
                    let item = items[first + r]
                    let value = Screen.value(of: item, state)
                    let cells = Array(text)
                    let labelEnd = columns - (value.isEmpty ? 0 : value.count + 1)
                    let label = String(cells[1..<labelEnd]).trimmingSuffix(" ")
                    #expect(([item.rawValue] + item.shorterLabels).contains(label),
                            "\(columns)x\(rows) row \"\(text)\": \"\(label)\" is not a whole label of \(item)")
                    #expect(String(cells[(columns - value.count)...]) == value, "row \"\(text)\" shows \(value)")
                }
            }
        }
    }

    @Test(arguments: sizes)
    func everyValuePageShowsItsLabelAndValueWhole(columns: Int, rows: Int) {
        for base in Self.settingStates {
            for item in Menu.Item.allCases where item != .routines {
                var state = base
                state.menu = Menu(page: .editing(item), cursor: 0)
                let text = Screen.render(state, columns: columns, rows: rows).text
                #expect(Self.stands(state, columns, rows), "\(text) scrolls")
                #expect(text[0].trimmingSuffix(" ") == item.rawValue)
                #expect(text.contains { $0.contains("< \(Screen.value(of: item, state)) >") })
            }
        }
    }

    /// The notices whose words are fixed: hints, stick refusals, imports, the empty library.
    static let notices: [Notice] = {
        var notices = ["Last part", "First routine", "Last routine", "B must follow A", "Loop too short", "No cue",
                       "Cue outside loop", "No beat grid", "Stick removed"].map { Notice(.info, [$0]) }
        notices.append(Notice(.info, ["No routines", "Insert a stick"]))
        for n in [1, 2, 12, 250] { notices.append(Notice(.info, ["Stick found", "\(n) routine\(n == 1 ? "" : "s")"])) }
        for reason in [StickRefusal.Reason.apfs, .encrypted, .unknown, .unsupported, .mountFailed] {
            notices.append(Notice(.problem, StickRefusal(device: "sda1", fileSystem: "ntfs", reason: reason, message: "").lines))
        }
        for summary in [ImportSummary(), ImportSummary(added: 12), ImportSummary(added: 3, replaced: 2),
                        ImportSummary(stopped: "disk full")] {
            notices.append(Notice(summary.failed > 0 ? .problem : .info, summary.lines))
        }
        return notices
    }()

    @Test(arguments: sizes)
    func everyFixedNoticeFitsWhole(columns: Int, rows: Int) {
        for notice in Self.notices {
            var state = PlayerState()
            state.notice = ShownNotice(notice: notice, until: 60_000_000_000)
            let text = Screen.render(state, columns: columns, rows: rows).text
            #expect(Self.stands(state, columns, rows), "\(text) scrolls")
            for (r, line) in notice.lines.enumerated() {
                let shown = (notice.kind == .problem && r == 0 ? "!" : "") + line
                #expect(text[r].trimmingSuffix(" ") == shown, "\(columns)x\(rows): \"\(shown)\" shows as \"\(text[r])\"")
            }
        }
    }

    /// Whether `row` is `left`, at least one blank, then `right` at the right end.
    static func spaced(_ row: String, _ left: String, _ right: String) -> Bool {
        row.hasPrefix(left + " ") && row.hasSuffix(right)
            && row.count >= left.count + 1 + right.count
            && row.dropFirst(left.count).dropLast(right.count).allSatisfy { $0 == " " }
    }

    /// An import summary whose counts do not fit 16 cells folds them to what came in and
    /// what did not ("12 in, 1 not in"), never scrolled or cut.
    @Test(arguments: [ImportSummary(replaced: 12, failed: 1), ImportSummary(added: 1, replaced: 2, failed: 1),
                      ImportSummary(added: 99, replaced: 99, unchanged: 99, failed: 99, renamed: 3, leftOut: 9),
                      ImportSummary(added: 3, unchanged: 2, leftOut: 2)])
    func anImportSummaryStandsAt16x2(_ summary: ImportSummary) {
        var state = PlayerState()
        state.notice = ShownNotice(notice: Notice(.problem, summary.lines), until: 60_000_000_000)
        #expect(Self.stands(state, 16, 2), "\(summary.lines)")
    }

    @Test(arguments: sizes)
    func fixedScreensFitForEveryCount(columns: Int, rows: Int) {
        for n in [1, 2, 9, 12, 250] {
            var state = PlayerState()
            state.stick = StickOffer(path: "/media/stick", routines: n)
            let text = Screen.render(state, columns: columns, rows: rows).text
            let routines = "\(n) routine\(n == 1 ? "" : "s")"
            #expect(Self.stands(state, columns, rows), "\(text) scrolls")
            #expect(["Stick: " + routines, routines].contains(text[0].trimmingSuffix(" ")), "\(text)")
            #expect(text[1].trimmingSuffix(" ") == "Push to import")
        }
        for (r, c) in [(1, 1), (3, 12), (12, 12), (99, 99)] {
            for percent in [0, 45, 100] {
                var state = PlayerState()
                state.importing = ImportProgress(routine: r, count: c, title: "Jam", percent: percent)
                let text = Screen.render(state, columns: columns, rows: rows).text
                #expect(Self.stands(state, columns, rows), "\(text) scrolls")
                #expect(Self.spaced(text[0], "Import \(r)/\(c)", "\(percent)%")
                        || Self.spaced(text[0], "\(r)/\(c)", "\(percent)%"), "\(columns)x\(rows): \(text)")
            }
        }
        for volume in stride(from: 0, through: 100, by: Settings.volumeStep) {
            var state = PlayerState(routines: [Routine(title: "Jam", parts: [Self.part])])
            state.settings.volume = volume
            state.volumeShownUntil = 60_000_000_000
            let text = Screen.render(state, columns: columns, rows: rows).text
            #expect(Self.stands(state, columns, rows), "\(text) scrolls")
            #expect(Self.spaced(text[rows >= 4 ? 1 : 0], "Volume", "\(volume)%"), "\(text)")
        }
        for remaining in 1...20 {
            var state = PlayerState(routines: [Routine(title: "Jam", parts: [Self.part])])
            state.transport = .countingDown(Countdown(remaining: remaining, origin: .stopped))
            let text = Screen.render(state, columns: columns, rows: rows).text
            #expect(Self.stands(state, columns, rows), "\(text) scrolls")
            #expect(text[rows >= 4 ? 1 : 0].hasPrefix("Ready in "), "\(columns)x\(rows): \(text)")
        }
    }
}

extension String {
    func trimmingSuffix(_ c: Character) -> String {
        var s = self
        while s.last == c { s.removeLast() }
        return s
    }
}
