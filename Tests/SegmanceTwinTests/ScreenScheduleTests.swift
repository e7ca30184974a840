import SegmanceAppliance
import SegmanceAudio
import SegmanceCore
import SegmanceScreen
import Testing

/// What the LCD shows when, from the state and the heard clock (`ScreenSchedule.plan`): a
/// part of 30 s at 48 kHz heard at 1.25 s at time 10 s, and what follows from each state
/// and clock.
@Suite(.tags(.unit)) struct ScreenScheduleTests {
    static let rate: Int64 = 48_000
    static let ms: Int64 = 1_000_000
    static let instant: Int64 = 10_000 * ms
    static let heardAt: Int64 = 60_000   // 1.25 s

    /// A row of the table: how the state and the clock differ from the plain case, and the
    /// plan expected (times in ms after `instant`).
    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var speed = 100
        var transport: Transport = .playing
        var loopB: FramePosition?
        /// The epoch the clock hears (the core's is 1): another one is a command not heard yet.
        var heardEpoch: UInt32 = 1
        var heardPart: UInt32 = 0
        /// Where the clock wraps back to A (ms after `instant`), a jump already rendered.
        var wrapsAfter: Int64?
        /// Where the play history ends (ms after `instant`).
        var renderedFor: Int64 = 5_000
        var upcoming: [Int64]
        var heard: Bool
        var lookAgain: Int64?
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        // The clock's next seconds (2 s and 3 s) heard 0.75 s and 1.75 s on, 1 ms past; 4 s is
        // past the 2 s handed ahead.
        Case(name: "playing: the next seconds, 2 s ahead", upcoming: [751, 1_751], heard: true, lookAgain: 1_751),
        Case(name: "at half speed, twice as far apart", speed: 50, upcoming: [1_501], heard: true, lookAgain: 1_501),
        Case(name: "at 150 %", speed: 150, upcoming: [501, 1_167, 1_834], heard: true, lookAgain: 1_834),
        // Not heard yet: nothing ahead (it may jump), a look again in 5 ms.
        Case(name: "a command not heard yet", heardEpoch: 0, upcoming: [], heard: true, lookAgain: 5),
        // B at 1.5 s: the next second is past the loop's end, so nothing is handed ahead; the
        // wrap the audio side has rendered is heard 0.25 s on and looked at then.
        Case(name: "an A-B loop wrapping", loopB: 72_000, wrapsAfter: 250, upcoming: [], heard: true,
             lookAgain: 251),
        // B at 1.5 s, not rendered yet: the loop looks where the history ends, at the latest
        // at the next second.
        Case(name: "an A-B loop not yet rendered", loopB: 72_000, renderedFor: 400, upcoming: [], heard: true,
             lookAgain: 751),
        Case(name: "paused: the core's own screen", transport: .paused, upcoming: [], heard: false, lookAgain: nil),
        Case(name: "another part heard", heardPart: 7, upcoming: [], heard: false, lookAgain: nil),
    ]

    enum Transport: Sendable { case playing, paused }

    static func state(_ c: Case) -> PlayerState {
        let part = Part(title: "Groove", audio: AudioReference("a"), length: 30 * rate)
        var state = PlayerState(routines: [Routine(title: "Jam", parts: [part])])
        state.transport = c.transport == .playing ? .playing : .paused
        state.position = heardAt
        state.epoch = 1
        state.speedPercent = c.speed
        if let b = c.loopB { state.loop = .ab(ABLoop(a: 24_000, b: b)) }
        return state
    }

    /// The audio side's clock: the part heard from `heardAt` at the speed, back at A once
    /// it wraps, and nothing past what was rendered.
    static func clock(_ c: Case) -> (Int64) -> HeardFrame? {
        { time in
            let after = time - instant
            guard after <= c.renderedFor * ms else { return nil }
            if let wrap = c.wrapsAfter, after >= wrap * ms {
                let frames = (after - wrap * ms) * rate * Int64(c.speed) / 100 / 1_000_000_000
                return HeardFrame(sourceFrame: 24_000 + frames, epoch: c.heardEpoch, part: c.heardPart, advancing: true)
            }
            return HeardFrame(sourceFrame: heardAt + after * rate * Int64(c.speed) / 100 / 1_000_000_000,
                              epoch: c.heardEpoch, part: c.heardPart, advancing: true)
        }
    }

    @Test(arguments: cases)
    func thePlanIs(_ c: Case) {
        let state = Self.state(c)
        let schedule = ScreenSchedule(columns: 16, rows: 2, rom: .a00, part: 0, heard: Self.clock(c))
        let plan = schedule.plan(state, at: Self.instant)
        #expect(plan.heard == c.heard)
        #expect(plan.upcoming.map { ($0.time - Self.instant) / Self.ms } == c.upcoming)
        #expect(plan.lookAgain.map { ($0 - Self.instant) / Self.ms } == c.lookAgain)
        // Now: drawn at the position heard (1.25 s: "0:01"), or the core's own.
        var shown = state
        if c.heard { shown.position = Self.heardAt }
        #expect(plan.frame == Screen.render(shown, columns: 16, rows: 2, rom: .a00))
        // Each screen ahead is the one drawn at its time, and differs from the one before.
        for (time, frame) in plan.upcoming {
            #expect(schedule.frame(state, at: time) == frame)
            #expect(schedule.frame(state, at: time - 2 * Self.ms) != frame)
        }
    }

    /// A screen that expires by itself (a notice) bounds what is handed ahead and is looked
    /// at when it expires, on the heard clock (its core time plus the clock's origin).
    @Test func aScreenThatExpiresIsLookedAtThen() {
        var c = Self.cases[0]
        c.name = "a notice"
        var state = Self.state(c)
        state.now = 0
        state.notice = ShownNotice(notice: Notice(.info, ["Loop too short"], duration: 1_000 * Self.ms),
                                   until: 1_000 * Self.ms)
        let origin = Self.instant - 500 * Self.ms
        let schedule = ScreenSchedule(columns: 16, rows: 2, rom: .a00, part: 0, clockOrigin: origin,
                                      heard: Self.clock(c))
        let plan = schedule.plan(state, at: Self.instant)
        #expect(plan.frame.expires != nil)
        if let expires = plan.frame.expires {
            #expect(plan.lookAgain == expires + origin)
            #expect(plan.upcoming.allSatisfy { $0.time < expires + origin })
        }
    }
}
