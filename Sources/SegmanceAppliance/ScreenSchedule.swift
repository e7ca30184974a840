import SegmanceAudio
import SegmanceCore
import SegmanceScreen

/// What the LCD shows when, decided in one place: a pure function of the state and the
/// heard clock (what the audio side says sounded at a time: its device clock and play
/// history) giving the screen for now, the screens that follow while the music plays on,
/// each with the time it is heard, and when to look again. The daemon posts the plan to the
/// LCD's thread, which draws each screen at its time; the loop wakes at `lookAgain`.
public struct ScreenSchedule {
    /// A screen and the time it is due (the heard clock's time base: CLOCK_MONOTONIC ns on
    /// a board).
    public typealias Timed = (time: Int64, frame: Frame)

    /// The screen now, the screens to come, and when the loop must look again.
    public struct Plan {
        /// The screen at the position heard now (the core's own when nothing is heard).
        public var frame: Frame
        /// The screens after it while nothing is sent, in order of their times.
        public var upcoming: [Timed]
        /// Whether the position was heard (false: nothing plays, or the audio side cannot
        /// say; the loop then follows the position the audio side reports).
        public var heard: Bool
        /// When the screen changes in a way the plan cannot draw ahead: the last screen
        /// handed, the next change heard, a jump already rendered, a command not heard yet,
        /// or the screen's own expiry (a marquee step, a notice's end); nil: none.
        public var lookAgain: Int64?
    }

    /// How the screen is drawn.
    public var columns: Int
    public var rows: Int
    public var rom: CharacterROM
    /// The heard clock: what sounded at a time, nil when the audio side cannot say.
    public var heard: (Int64) -> HeardFrame?
    /// The number the heard clock gives the part the core is on (`HeardFrame.part`).
    public var part: UInt32
    /// The heard clock's time at the core's time 0 (`PlayerState.now`, `Frame.expires`).
    public var clockOrigin: Int64

    /// How long after the time a change is due to be heard it is looked at: past the audio
    /// side's clock error (under 1 ms at p99, `segmance-bench marks`).
    public static let heardMarginNanoseconds: Int64 = 1_000_000
    /// How soon to look again while a command sent is not heard yet (it is within the
    /// audio side's guard or a period).
    public static let commandHeardRecheckNanoseconds: Int64 = 5_000_000
    /// How soon to look again at a screen whose change is behind the position heard.
    public static let behindRecheckNanoseconds: Int64 = 20_000_000
    /// At most this many screens are handed ahead.
    public static let upcomingLimit = 8
    /// How far ahead, at most, screens are handed.
    public static let aheadNanoseconds: Int64 = 2_000_000_000

    public init(columns: Int, rows: Int, rom: CharacterROM, part: UInt32, clockOrigin: Int64 = 0,
                heard: @escaping (Int64) -> HeardFrame?) {
        self.columns = columns
        self.rows = rows
        self.rom = rom
        self.part = part
        self.clockOrigin = clockOrigin
        self.heard = heard
    }

    /// The plan at `instant` for `state`: screens are handed up to `aheadNanoseconds` ahead,
    /// and not past the screen's own expiry.
    public func plan(_ state: PlayerState, at instant: Int64) -> Plan {
        let frame = self.frame(state, at: instant)
        let expiry = frame.expires.map { $0 + clockOrigin }
        guard let now = heardNow(state, at: instant) else {
            return Plan(frame: frame, upcoming: [], heard: false, lookAgain: expiry)
        }
        let until = min(instant + Self.aheadNanoseconds, expiry ?? .max)
        let upcoming = self.upcoming(state, now, at: instant, until: until, shown: frame)
        let next = upcoming.last?.time ?? nextChange(state, now, at: instant, shown: frame)
        return Plan(frame: frame, upcoming: upcoming, heard: true, lookAgain: min(next, expiry ?? .max))
    }

    /// The screen at `instant`: while the music plays, drawn at the position heard then, so
    /// the clock and the beat change on the LCD as they sound.
    public func frame(_ state: PlayerState, at instant: Int64) -> Frame {
        var shown = state
        if let now = heardNow(state, at: instant) { shown.position = now.position }
        return Screen.render(shown, columns: columns, rows: rows, rom: rom)
    }

    /// The source frame of the part playing that sounded at `instant`; nil unless the music
    /// plays and that frame is of the part the core is on.
    public func heardPosition(_ state: PlayerState, at instant: Int64) -> FramePosition? {
        heardNow(state, at: instant)?.position
    }

    /// The position at which the screen drawn at `position` next changes with it: the
    /// clock's next second, or `shown`'s own next change (a beat, a cue), whichever first.
    public static func nextScreenChange(_ state: PlayerState, after position: FramePosition,
                                        shown: Frame?) -> FramePosition {
        let rate = max(1, state.sampleRate)
        let second = (max(0, position) / rate + 1) * rate
        return min(shown?.changesAtPosition ?? second, second)
    }

    /// What is heard at an instant: the position (clamped to the part), the source frame,
    /// its epoch and part.
    struct Heard {
        var position: FramePosition
        var frame: Int64
        var epoch: UInt32
        var part: UInt32
    }

    /// What is heard at `instant`, if it is of the part playing.
    func heardNow(_ state: PlayerState, at instant: Int64) -> Heard? {
        guard case .playing = state.transport, let heard = heard(instant), heard.advancing,
              heard.part == part, let part = state.part else { return nil }
        return Heard(position: min(max(0, heard.sourceFrame), part.length), frame: heard.sourceFrame,
                     epoch: heard.epoch, part: heard.part)
    }

    /// When, after `instant`, the screen drawn as heard next changes with the position: the
    /// clock's next second, or `shown`'s own next change, heard at the part's speed. A jump
    /// before it that the audio side has already rendered (a loop's wrap, a seek, the next
    /// part) is found in its play history, and the time it is heard returned instead; while
    /// a command sent is not yet heard, a few milliseconds.
    func nextChange(_ state: PlayerState, _ now: Heard, at instant: Int64, shown: Frame?) -> Int64 {
        let rate = max(1, state.sampleRate)
        let frames = Self.nextScreenChange(state, after: now.position, shown: shown) - now.position
        let speed = Int64(max(1, state.speedPercent))
        // A change behind the position heard (none is drawn so) must not spin the loop.
        var due = frames > 0
            ? instant + frames * 1_000_000_000 * 100 / (rate * speed) + Self.heardMarginNanoseconds
            : instant + Self.behindRecheckNanoseconds
        if now.epoch != state.epoch { due = min(due, instant + Self.commandHeardRecheckNanoseconds) }
        // Monotonic from `now` up to the time: no jump in between.
        func jumped(at time: Int64) -> Bool {
            guard let later = heard(time) else { return false }
            return later.part != now.part || later.epoch != now.epoch || later.sourceFrame < now.frame
        }
        // The first time in (from, to] where `holds` does (it holds from there on), to the
        // margin; `to` when it holds only there.
        func firstTime(from: Int64, to: Int64, where holds: (Int64) -> Bool) -> Int64 {
            var low = from, high = to
            while high - low > Self.heardMarginNanoseconds {
                let middle = low + (high - low) / 2
                if holds(middle) { high = middle } else { low = middle }
            }
            return high
        }
        // The play history ends at what the audio side has rendered: look as far as that.
        var probe = due
        if heard(probe) == nil {
            probe = firstTime(from: instant, to: due) { heard($0) == nil } - Self.heardMarginNanoseconds
            probe = max(probe, instant)
        }
        guard jumped(at: probe) else { return due }
        return firstTime(from: instant, to: probe, where: jumped) + Self.heardMarginNanoseconds
    }

    /// The screens after `instant` while nothing is sent, each with the time it is due,
    /// before `until`. Extrapolated from the position heard at the part's speed, so only
    /// where nothing can jump: not while a command sent is still unheard, and never at or
    /// past the loop's end or the part's (the wrap or the next part is heard first).
    func upcoming(_ state: PlayerState, _ now: Heard, at instant: Int64, until: Int64, shown: Frame) -> [Timed] {
        guard now.epoch == state.epoch, let part = state.part else { return [] }
        let rate = max(1, state.sampleRate)
        let speed = Int64(max(1, state.speedPercent))
        var end = part.length
        switch state.loop {
        case .part: break
        // Heard at or past B: the wrap comes as soon as the loop is rendered.
        case .ab(let loop): end = now.position < loop.b ? loop.b : now.position
        case .off, .markedA: break
        }
        // Frames heard `nanoseconds` after `instant`, and back (rounded so a time made from
        // a frame maps back to it or after it).
        func frames(_ nanoseconds: Int64) -> Int64 { nanoseconds * rate * speed / 100 / 1_000_000_000 }
        func nanoseconds(_ frames: Int64) -> Int64 {
            (frames * 1_000_000_000 * 100 + rate * speed - 1) / (rate * speed)
        }
        var upcoming: [Timed] = []
        var last = shown
        var position = now.position
        var shownState = state
        while upcoming.count < Self.upcomingLimit {
            let change = Self.nextScreenChange(state, after: position, shown: last)
            guard change > position, change < end else { break }
            let time = instant + nanoseconds(change - now.position) + Self.heardMarginNanoseconds
            guard time < until else { break }
            position = min(now.position + frames(time - instant), end - 1)
            shownState.position = position
            let frame = Screen.render(shownState, columns: columns, rows: rows, rom: rom)
            upcoming.append((time, frame))
            last = frame
        }
        return upcoming
    }
}
