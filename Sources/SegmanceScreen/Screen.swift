import SegmanceCore

/// `render(state, columns, rows) -> Frame`: what the LCD shows for a state. Pure.
public enum Screen {
    /// Renders `state` for a `columns`×`rows` display (16×2 and 20×4 are laid out) whose
    /// character ROM is `rom` (what names may use beyond ASCII). Priority: a notice, the menu,
    /// the volume bar, a stick on offer, import progress (unless playing), the countdown, the
    /// moves view, now playing. The frame carries the backlight, and expires when it dims.
    public static func render(_ state: PlayerState, columns: Int, rows: Int, rom: CharacterROM = .a00) -> Frame {
        var f = Frame(columns: columns, rows: rows, rom: rom)
        let now = state.now
        f.backlight = state.backlight
        if state.backlight, let dim = Rules.lightDimsAt(state) { f.expire(at: dim) }
        if let shown = state.notice, now < shown.until {
            notice(shown.notice, state, into: &f, now: now)
            f.expire(at: shown.until)
        } else if let menu = state.menu {
            self.menu(menu, state, into: &f, now: now)
        } else if let until = state.volumeShownUntil, now < until {
            volume(state.settings.volume, into: &f)
            f.expire(at: until)
        } else if state.stickOfferShown, let stick = state.stick {
            offer(stick, into: &f, now: now)
        } else if let progress = state.importing, !isRunning(state.transport) {
            importing(progress, into: &f, now: now)
        } else if state.routine == nil {
            f.line("No routines", row: 0, now: now)
            f.line("Insert a stick", row: 1, now: now)
        } else if let run = state.classRun, let until = run.gapUntil, now < until {
            classGap(run, until: until, state, into: &f, now: now)
        } else if case .countingDown(let countdown) = state.transport {
            self.countdown(countdown, state, into: &f, now: now)
        } else if state.view == .moves {
            moves(state, into: &f, now: now)
        } else {
            nowPlaying(state, into: &f, now: now)
        }
        return f
    }

    // MARK: - Screens

    private static func nowPlaying(_ state: PlayerState, into f: inout Frame, now: Int64) {
        guard let routine = state.routine, let part = state.part else { return }
        let top = f.rows >= 4 ? 1 : 0
        let counter = passCounter(state, loop: Glyph.loop.rawValue)
        let speed = speedBadge(state)
        if f.rows >= 4 {
            // The routine's title, then the speed and the loop's pass at its right end.
            let badges = (speed.isEmpty ? [] : speed + (counter.isEmpty ? [] : [0x20])) + counter
            let width = f.columns - (badges.isEmpty ? 0 : badges.count + 1)
            f.scroll(f.bytes(routineName(state, f.rom)), width: width, row: 0, now: now)
            f.put(badges, row: 0, column: f.columns - badges.count)
        }
        // "▶ 2/3 Groove" with the loop markers at the right end.
        let markers = loopMarkers(state.loop)
        f.put(transportGlyph(state.transport).rawValue, row: top)
        f.put(0x20, row: top, column: 1)
        let head = 2 + f.put("\(state.partIndex + 1)/\(routine.parts.count) ", row: top, column: 2)
        let titleWidth = f.columns - head - (markers.isEmpty ? 0 : markers.count + 1)
        f.scroll(f.bytes(partName(state, f.rom)), width: titleWidth, row: top, column: head, now: now)
        f.put(markers, row: top, column: f.columns - markers.count)
        // "0:12/0:32" on every part; on 20 columns a progress bar between the two. On a part
        // with a beat, where in the eights the music is ("E3 B5": eight 3, beat 5).
        let place = eightsPlace(state)
        let position = TimeText.minutesSeconds(state.position, sampleRate: state.sampleRate)
        let length = TimeText.minutesSeconds(part.length, sampleRate: state.sampleRate)
        if f.rows >= 4, let until = state.loopTimesShownUntil, now < until, let times = loopTimes(state, f.columns) {
            f.line(times, row: 2, now: now)
            f.expire(at: until)
        } else if f.rows >= 4 {
            let right = LCDText.bytes(length)
            var left = LCDText.bytes(position)
            if let place, let label = place.label(fitting: f.columns - left.count - right.count - 2) {
                left += [0x20] + label
                f.change(atPosition: place.changesAt)
            }
            f.put(left, row: 2)
            f.put(right, row: 2, column: f.columns - right.count)
            let barWidth = f.columns - left.count - right.count - 2
            f.put(bar(state.position, of: part.length, width: barWidth), row: 2, column: left.count + 1)
            if let step = nextBarStep(state.position, of: part.length, width: barWidth) { f.change(atPosition: step) }
            if let cue = nextCue(state) { f.change(atPosition: cue) }
            if let m = state.currentMoveIndex {
                f.put([Glyph.note.rawValue, 0x20], row: 3)
                f.scroll(f.bytes(moveLine(part.moves[m])), width: f.columns - 2, row: 3, column: 2, now: now)
            }
        } else if let until = state.titleShownUntil, now < until {
            // Which routine: its title in place of the clock, for a moment.
            f.line(routineName(state, f.rom), row: 1, now: now)
            f.expire(at: until)
        } else if let until = state.loopTimesShownUntil, now < until, let times = loopTimes(state, f.columns) {
            // A mark: the loop's times in place of the clock, for a moment.
            f.line(times, row: 1, now: now)
            f.expire(at: until)
        } else {
            clockRow(position: position, length: length, place: place, badges: (speed, counter), into: &f)
        }
    }

    /// 16×2's second row: the clock at the left, the speed and the loop's pass at the right,
    /// the place in the eights before them where it fits (on 16 columns only while neither
    /// shows: docs/controls.md says why). When the clock and both badges don't fit, the
    /// clock's length goes first, then the speed.
    private static func clockRow(position: String, length: String, place: EightsPlace?,
                                 badges: (speed: [UInt8], counter: [UInt8]), into f: inout Frame) {
        let (speed, counter) = badges
        let right = speed.isEmpty ? counter : counter.isEmpty ? speed : speed + [0x20] + counter
        let full = "\(position)/\(length)"
        let room = f.columns - (right.isEmpty ? 0 : right.count + 1)
        guard let clock = [full, position].first(where: { LCDText.width($0) <= room }) else {
            f.put(LCDText.bytes(full), row: 1)
            f.put(counter, row: 1, column: f.columns - counter.count)
            return
        }
        f.put(LCDText.bytes(clock), row: 1)
        f.put(right, row: 1, column: f.columns - right.count)
        // The place, right-aligned before the badges, where a space on each side is left.
        if let place, let label = place.label(fitting: room - LCDText.width(clock) - 1) {
            f.put(label, row: 1, column: room - label.count)
            f.change(atPosition: place.changesAt)
        }
    }

    /// Where the music is in the eights, as shown, and the position at which that changes.
    struct EightsPlace {
        /// Eight 3 ("E0" is a pickup before the part's first "1").
        var eight: Int64
        /// Beat 5 of the eight.
        var beat: Int
        /// The next beat (a little early, as `BeatGrid.shownPlace` shows it).
        var changesAt: FramePosition

        /// "E3 B5", or "E113B5" when only that fits in `width` cells; nil when neither does.
        func label(fitting width: Int) -> [UInt8]? {
            ["E\(eight) B\(beat)", "E\(eight)B\(beat)"].map { LCDText.bytes($0) }.first { $0.count <= width }
        }
    }

    /// The place in the eights on a part with a beat grid; nil on a part with none.
    static func eightsPlace(_ state: PlayerState) -> EightsPlace? {
        guard let grid = state.part?.grid else { return nil }
        let place = grid.shownPlace(of: state.position, sampleRate: state.sampleRate)
        let ahead = FramePosition((BeatGrid.shownBeatTolerance * Double(state.sampleRate)).rounded())
        return EightsPlace(eight: place.eight, beat: place.beat,
                           changesAt: grid.frame(ofBeat: place.shownBeat + 1) - ahead)
    }

    /// "75%" while the part plays at a speed other than 100 %; empty at 100 %.
    static func speedBadge(_ state: PlayerState) -> [UInt8] {
        state.speedPercent == 100 ? [] : LCDText.bytes("\(state.speedPercent)%")
    }

    /// "⟲2/4" (pass 2 of a loop that stops after 4) or "⟲x3" (pass 3 of an endless loop)
    /// while a loop is on; empty otherwise. `loop` is the loop glyph's slot in the frame's set.
    static func passCounter(_ state: PlayerState, loop: UInt8) -> [UInt8] {
        guard state.loopIsOn else { return [] }
        let passes = state.settings.loopPasses
        var counter = [loop]
        // Digits, "x" and "/": display bytes as they are.
        counter += (passes > 0 ? "\(state.loopPass)/\(passes)" : "x\(state.loopPass)").utf8
        return counter
    }

    /// The volume gesture: "Volume 80%" and a bar.
    private static func volume(_ volume: Int, into f: inout Frame) {
        let top = f.rows >= 4 ? 1 : 0
        let percent = LCDText.bytes("\(volume)%")
        f.put(LCDText.bytes("Volume"), row: top)
        f.put(percent, row: top, column: f.columns - percent.count)
        f.put(bar(Int64(volume), of: 100, width: f.columns), row: top + 1)
    }

    private static func offer(_ stick: StickOffer, into f: inout Frame, now: Int64) {
        let routines = "\(stick.routines) routine\(stick.routines == 1 ? "" : "s")"
        f.line(fitting(["Stick: " + routines, routines], width: f.columns), row: 0, now: now)
        f.line("Push to import", row: 1, now: now)
        if f.rows >= 4 { f.line("Hold: not now", row: 3, now: now) }
    }

    /// "Import 1/3 45%" and the routine's title.
    private static func importing(_ progress: ImportProgress, into f: inout Frame, now: Int64) {
        let percent = LCDText.bytes("\(progress.percent)%")
        let place = "\(progress.routine)/\(progress.count)"
        f.put(f.bytes(fitting(["Import " + place, place], width: f.columns - percent.count - 1)), row: 0)
        f.put(percent, row: 0, column: f.columns - percent.count)
        f.line(
            LCDText.canShow(progress.title, rom: f.rom) ? progress.title : "Routine \(progress.routine)", row: 1,
            now: now)
        if f.rows >= 4 { f.put(bar(Int64(progress.percent), of: 100, width: f.columns), row: 3) }
    }

    private static func isRunning(_ transport: Transport) -> Bool {
        switch transport {
        case .playing, .countingDown: true
        case .paused, .stopped: false
        }
    }

    /// The count-in: the seconds left in numerals two rows high at the right; "Ready in"
    /// and the part (with the loop's pass before a repeat) at the left.
    private static func countdown(_ countdown: Countdown, _ state: PlayerState, into f: inout Frame, now: Int64) {
        guard let routine = state.routine, state.part != nil else { return }
        f.glyphs = .bigDigits
        let digits = BigDigits.rows(countdown.shown)
        let top = f.rows >= 4 ? 1 : 0
        let column = max(0, f.columns - digits.top.count)
        f.put(digits.top, row: top, column: column)
        f.put(digits.bottom, row: top + 1, column: column)
        f.bigNumber = Frame.BigNumber(value: countdown.shown, row: top, column: column, width: digits.top.count)
        let width = max(0, column - 1)
        f.put(Array(LCDText.bytes("Ready in").prefix(width)), row: top)
        let counter = passCounter(state, loop: BigDigitGlyph.loop.rawValue)
        if f.rows >= 4 {
            f.line(routineName(state, f.rom), row: 0, now: now)
            f.put(Array(counter.prefix(width)), row: 2)
            f.line("\(state.partIndex + 1)/\(routine.parts.count) \(partName(state, f.rom))", row: 3, now: now)
        } else {
            let head = counter.isEmpty ? [] : counter + [0x20]
            f.put(head, row: 1)
            f.scroll(
                f.bytes(partName(state, f.rom)), width: max(0, width - head.count), row: 1, column: head.count, now: now
            )
        }
    }

    private static func moves(_ state: PlayerState, into f: inout Frame, now: Int64) {
        // The transport symbol leads the first row here too: it always shows the real state.
        let glyph = transportGlyph(state.transport).rawValue
        guard let part = state.part, let m = state.shownMoveIndex else {
            f.put([glyph, 0x20] + LCDText.bytes("No moves"), row: 0)
            if state.part != nil { f.line(partName(state, f.rom), row: 1, now: now) }
            return
        }
        func show(_ index: Int, at row: Int) {
            let move = part.moves[index]
            // "#2": the move's number, never "2/3", which is a part's.
            let head = [row == 0 ? glyph : Glyph.note.rawValue, 0x20] + LCDText.bytes("#\(index + 1) ")
            f.put(head, row: row)
            f.scroll(f.bytes(move.name), width: f.columns - head.count, row: row, column: head.count, now: now)
            // The cue first, when it has one: the encoder push plays from there.
            let cue = move.cue.map { TimeText.minutesSeconds($0, sampleRate: state.sampleRate) + " " } ?? ""
            let detail = move.note.isEmpty ? move.type.name : "\(move.type.name): \(move.note)"
            f.line(cue + detail, row: row + 1, now: now)
        }
        show(m, at: 0)
        if f.rows >= 4, m + 1 < part.moves.count { show(m + 1, at: 2) }
        if let cue = nextCue(state) { f.change(atPosition: cue) }
    }

    /// The first cue still ahead of the position: where the move shown may change.
    static func nextCue(_ state: PlayerState) -> FramePosition? {
        state.part?.moves.compactMap(\.cue).filter { $0 > state.position }.min()
    }

    private static func menu(_ menu: Menu, _ state: PlayerState, into f: inout Frame, now: Int64) {
        switch menu.page {
        case .main:
            let items = Menu.Item.allCases
            list(items.map { item in
                let value = value(of: item, state)
                // The longest label that leaves room for the value (a cursor '>', a space).
                let room = f.columns - 1 - (value.isEmpty ? 0 : LCDText.width(value) + 1)
                return (fitting([item.rawValue] + item.shorterLabels, width: room), value)
            }, cursor: menu.cursor, into: &f, now: now)
        case .routines:
            // The place in the list ("3/12") beside the routine under the cursor.
            let count = state.routines.count
            list(state.routines.enumerated().map { i, routine in
                (shownName(routine.title, short: routine.short, or: "Routine \(i + 1)", f.rom),
                 i == menu.cursor ? "\(i + 1)/\(count)" : "")
            }, cursor: menu.cursor, into: &f, now: now)
        case .editing(let item):
            f.line(item.rawValue, row: 0, now: now)
            if let layer = layer(of: item, state) {
                let tag = LCDText.bytes(layer)
                f.put(tag, row: 0, column: max(item.rawValue.utf8.count + 1, f.columns - tag.count))
            }
            let v = LCDText.bytes("< \(value(of: item, state)) >")
            f.put(v, row: f.rows >= 4 ? 2 : 1, column: max(0, (f.columns - v.count) / 2))
        case .problems:
            let pages = ProblemsRules.pages(state.problems, DisplaySize(columns: f.columns, rows: f.rows))
            guard pages.indices.contains(menu.cursor) else { return }
            for (r, line) in pages[menu.cursor].enumerated() { f.line(line, row: r, now: now) }
        case .loopEnds(let end):
            loopEnds(end, state, into: &f, now: now)
        case .choosing(let item):
            // The place in the list ("2/4") beside the row under the cursor.
            let rows = Menu.rows(item, state)
            list(rows.enumerated().map { i, row in (row, i == menu.cursor ? "\(i + 1)/\(rows.count)" : "") },
                 cursor: menu.cursor, into: &f, now: now)
        case .tapping:
            // The label, the taps so far at its right; below, the tempo once there are enough.
            f.line(Menu.Item.tapTempo.rawValue, row: 0, now: now)
            if !menu.taps.isEmpty {
                let count = LCDText.bytes("\(menu.taps.count)")
                f.put(count, row: 0, column: max(0, f.columns - count.count))
            }
            f.line(tapping(menu.taps, state), row: f.rows >= 4 ? 2 : 1, now: now)
        }
    }

    /// A class set's gap: its place in the set and the seconds left ("Class 2/3   0:03"), the
    /// next title below.
    static func classGap(_ run: ClassRun, until: Int64, _ state: PlayerState, into f: inout Frame, now: Int64) {
        guard state.classSets.indices.contains(run.set) else { return }
        let set = state.classSets[run.set]
        let left = (until - now + 999_999_999) / 1_000_000_000
        f.line("Class \(run.track + 1)/\(set.tracks.count)", row: 0, now: now)
        let time = LCDText.bytes(TimeText.minutesSeconds(left * state.sampleRate, sampleRate: state.sampleRate))
        f.put(time, row: 0, column: max(0, f.columns - time.count))
        let onePart = set.tracks.indices.contains(run.track) && set.tracks[run.track].part != nil
        f.line(routineName(state, f.rom) + (onePart ? ": " + (state.part?.title ?? "") : ""), row: 1, now: now)
        f.expire(at: until - (left - 1) * 1_000_000_000)
    }

    /// The *Tap tempo* page's second line: what to do, or the tempo of the taps so far.
    static func tapping(_ taps: [FramePosition], _ state: PlayerState) -> String {
        guard let grid = TapTempoRules.grid(taps, sampleRate: state.sampleRate) else { return "Tap LOOP on beat" }
        return "\(tenths(grid.bpm(sampleRate: state.sampleRate))) BPM"
    }

    /// A tempo to a tenth: "120.0".
    static func tenths(_ bpm: Double) -> String {
        let t = Int((bpm * 10).rounded())
        return "\(t / 10).\(t % 10)"
    }

    /// The A–B loop's times, the encoder's end marked with '>' and what a detent moves it by.
    private static func loopEnds(_ end: Menu.LoopEnd, _ state: PlayerState, into f: inout Frame, now: Int64) {
        guard case .ab(let loop) = state.loop else { return }
        let top = f.rows >= 4 ? 1 : 0
        if f.rows >= 4 { f.line(Menu.Item.abLoop.rawValue, row: 0, now: now) }
        let unit = LCDText.bytes(state.part?.grid == nil ? "+-\(LoopTimeRules.nudgeMilliseconds)ms" : "+-beat")
        for (r, (name, frame)) in [(Menu.LoopEnd.a, loop.a), (.b, loop.b)].enumerated() {
            let mark = name == end ? ">" : " "
            let label = name == .a ? "A" : "B"
            let time = TimeText.tenths(frame, sampleRate: state.sampleRate)
            f.put(LCDText.bytes("\(mark)\(label) \(time)"), row: top + r)
        }
        f.put(unit, row: top + (end == .a ? 0 : 1), column: max(0, f.columns - unit.count))
    }

    /// "A 0:08.2" while only A is marked; both times once the loop is on ("A0:08.2  B0:12.0"
    /// on 16 columns, spaced out where there is room).
    static func loopTimes(_ state: PlayerState, _ columns: Int) -> String? {
        let rate = state.sampleRate
        switch state.loop {
        case .markedA(let a): return "A \(TimeText.tenths(a, sampleRate: rate))"
        case .ab(let loop):
            let a = TimeText.tenths(loop.a, sampleRate: rate), b = TimeText.tenths(loop.b, sampleRate: rate)
            let spaced = "A \(a)  B \(b)"
            return spaced.count <= columns ? spaced : "A\(a)  B\(b)"
        case .off, .part: return nil
        }
    }

    /// A scrolling list: '>' marks the cursor row; values are right-aligned.
    private static func list(_ rows: [(String, String)], cursor: Int, into f: inout Frame, now: Int64) {
        guard !rows.isEmpty else {
            f.line("(empty)", row: 0, now: now)
            return
        }
        let first = min(max(0, cursor - f.rows + 1), max(0, rows.count - f.rows))
        for r in 0..<min(f.rows, rows.count - first) {
            let i = first + r
            let (label, value) = rows[i]
            let v = LCDText.bytes(value)
            f.put([i == cursor ? UInt8(ascii: ">") : 0x20], row: r)
            let width = f.columns - 1 - (v.isEmpty ? 0 : v.count + 1)
            let text = f.bytes(label)
            if i == cursor {
                f.scroll(text, width: width, row: r, column: 1, now: now)
            } else {
                f.put(Array(text.prefix(width)), row: r, column: 1)
            }
            f.put(v, row: r, column: f.columns - v.count)
        }
    }

    private static func notice(_ notice: Notice, _ state: PlayerState, into f: inout Frame, now: Int64) {
        for (r, text) in notice.lines.prefix(f.rows).enumerated() {
            // The routine's title (entering a routine) as the display names the routine.
            let line = text == state.routine?.title ? routineName(state, f.rom) : text
            f.line((notice.kind == .problem && r == 0 ? "!" : "") + line, row: r, now: now)
        }
    }

    // MARK: - Pieces

    static func value(of item: Menu.Item, _ state: PlayerState) -> String {
        let s = state.settings
        switch item {
        case .routines: return ""
        case .countdown:
            if state.countdownBeats > 0 { return "\(state.countdownBeats) beats" }
            return state.countdownSeconds == 0 ? "Off" : "\(state.countdownSeconds) s"
        case .countdownBeforeRepeat: return s.countdownBeforeRepeat ? "On" : "Off"
        case .atPartEnd: return s.atPartEnd == .stop ? "Stop" : "Next"
        case .volume: return "\(s.volume)%"
        case .autoImport: return s.autoImport ? "On" : "Off"
        case .loopPause: return s.loopPause == 0 ? "Off" : "\(s.loopPause) s"
        case .loopPasses: return s.loopPasses == 0 ? "Off" : "\(s.loopPasses)x"
        case .lightIdle:
            if s.lightIdle == 0 { return "Never" }
            return s.lightIdle < 60 ? "\(s.lightIdle) s" : "\(s.lightIdle / 60) min"
        case .loopSnap:
            switch s.loopSnap {
            case .off: return "Off"
            case .beat: return "Beat"
            case .eight: return "Eight"
            }
        case .turnBy:
            switch s.turnBy {
            case .seconds: return "\(Rules.seekSecondsPerDetent) s"
            case .beats: return "Beat"
            case .eights: return "Eight"
            }
        case .oneHere:
            guard let grid = state.part?.grid else { return "No beat" }
            return "Beat \(grid.shownPlace(of: state.position, sampleRate: state.sampleRate).beat)"
        case .countVoice: return s.countVoice == .ticks ? "Ticks" : "Spoken"
        case .classSet:
            if let run = state.classRun, state.classSets.indices.contains(run.set) {
                return "\(run.track + 1)/\(state.classSets[run.set].tracks.count)"
            }
            return state.classSets.isEmpty ? "None" : "\(state.classSets.count)"
        case .newClass: return ""
        case .tapTempo:
            guard let grid = state.part?.grid else { return "No beat" }
            return tenths(grid.bpm(sampleRate: state.sampleRate))
        case .stopFade:
            if s.stopFade == 0 { return "Short" }
            let tenths = s.stopFade / 100
            return tenths % 10 == 0 ? "\(tenths / 10) s" : "\(tenths / 10).\(tenths % 10) s"
        case .stickLoop:
            guard let part = state.part, let stick = part.stickLoop else { return "None" }
            return part.savedLoop == stick ? "On" : "Off"
        case .leadIn:
            guard let part = state.part else { return "" }
            return part.leadIn?.description ?? "Off"
        case .ramp:
            guard let part = state.part else { return "" }
            return part.ramp?.shown ?? "Off"
        case .abLoop:
            if case .ab = state.loop { return "On" }
            return "Off"
        case .problems: return state.problems.isEmpty ? "None" : "\(state.problems.count)"
        case .parts:
            guard let routine = state.routine else { return "" }
            return "\(state.partIndex + 1)/\(routine.parts.count)"
        case .loops:
            guard let loops = state.part?.loops, !loops.isEmpty else { return "None" }
            return "\(loops.count)"
        case .split, .join, .namePart, .deletePart, .nameLoop, .addMove, .deleteMove, .newRoutine, .saveToStick:
            return ""
        }
    }

    /// Where the value being edited comes from, where that matters: a routine whose stick gives
    /// its own count-in uses it ("stick") unless the teacher chose theirs ("mine").
    static func layer(of item: Menu.Item, _ state: PlayerState) -> String? {
        guard item == .countdown, let routine = state.routine, routine.countdown != nil else { return nil }
        return routine.usesOwnCountdown ? "stick" : "mine"
    }

    /// The symbol always shows the real state of the transport.
    static func transportGlyph(_ transport: Transport) -> Glyph {
        switch transport {
        case .playing, .countingDown: .play
        case .paused: .pause
        case .stopped: .stop
        }
    }

    static func loopMarkers(_ loop: LoopMode) -> [UInt8] {
        switch loop {
        case .off: []
        case .part: [Glyph.loop.rawValue]
        case .markedA: [Glyph.markA.rawValue]
        case .ab: [Glyph.markA.rawValue, Glyph.markB.rawValue]
        }
    }

    /// The first position after `position` at which `bar` shows one more half cell; nil at
    /// the end or with no bar.
    static func nextBarStep(_ position: FramePosition, of length: FramePosition, width: Int) -> FramePosition? {
        guard width > 0, length > 0, position < length else { return nil }
        let steps = Int64(width * 2)
        let halves = max(0, position) * steps / length
        // The least p with p × steps / length ≥ halves + 1.
        return ((halves + 1) * length + steps - 1) / steps
    }

    /// A progress bar in half-cell steps: full blocks, then a half block.
    static func bar(_ position: FramePosition, of length: FramePosition, width: Int) -> [UInt8] {
        guard width > 0 else { return [] }
        let halves = length > 0 ? Int(min(max(0, position), length) * Int64(width * 2) / length) : 0
        return (0..<width).map { i in
            halves >= 2 * (i + 1) ? Glyph.fullBlock : halves == 2 * i + 1 ? Glyph.halfBar.rawValue : 0x20
        }
    }

    static func moveLine(_ move: Move) -> String {
        move.note.isEmpty ? move.name : "\(move.name) - \(move.note)"
    }

    /// The first of `forms` that fits in `width` cells, else the last (the shortest).
    static func fitting(_ forms: [String], width: Int) -> String {
        forms.first { LCDText.width($0) <= width } ?? forms.last ?? ""
    }

    /// What the routine playing is called on this display (`shownName`).
    static func routineName(_ state: PlayerState, _ rom: CharacterROM) -> String {
        guard let routine = state.routine else { return "" }
        return shownName(routine.title, short: routine.short, or: "Routine \((state.routineIndex ?? 0) + 1)", rom)
    }

    /// What the part playing is called on this display (`shownName`).
    static func partName(_ state: PlayerState, _ rom: CharacterROM) -> String {
        guard let part = state.part else { return "" }
        return shownName(part.title, short: part.short, or: "Part \(state.partIndex + 1)", rom)
    }

    /// The manifest's short name when the display shows it, else the title when it does,
    /// else `fallback` (its place: "Routine 3", "Part 2"): two names the display cannot
    /// show stay told apart, never a row of "?".
    static func shownName(_ title: String, short: String?, or fallback: String, _ rom: CharacterROM) -> String {
        if let short, !short.isEmpty, LCDText.canShow(short, rom: rom) { return short }
        return LCDText.canShow(title, rom: rom) ? title : fallback
    }
}

extension Frame {
    /// A whole row of text, scrolling when it is too long.
    mutating func line(_ text: String, row: Int, now: Int64) {
        scroll(bytes(text), width: columns, row: row, now: now)
    }

    /// `text` as this display's bytes (`LCDText`, with the frame's ROM).
    func bytes(_ text: String) -> [UInt8] { LCDText.bytes(text, rom: rom) }
}
