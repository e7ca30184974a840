import SegmanceAppliance
import SegmanceScreen

/// The LCD in the loop: after every pass it posts the LCD's thread the plan of what the LCD
/// shows when (`ScreenSchedule`: the screen at the position heard now, and the screens that
/// follow while the music plays on, each with its time), and the loop wakes when the plan
/// says to look again, not for each second and beat.
final class ScreenSource: LoopSource {
    private let display: DisplayWorker
    private let audio: DaemonAudio
    private let context: LoopContext
    private let sampleRate: Int
    /// The plan posted last, and what it was posted with.
    private var last: ScreenSchedule.Plan?

    /// Times of a screen to come that differ by no more than this are the same.
    static let upcomingSlackNanoseconds: Int64 = 2_000_000

    init(_ display: DisplayWorker, audio: DaemonAudio, sampleRate: Int, context: LoopContext) {
        self.display = display
        self.audio = audio
        self.sampleRate = sampleRate
        self.context = context
    }

    func deadline(now: Int64) -> Int64? {
        let planned = last?.lookAgain
        guard let position = positionDeadline(now: now) else { return planned }
        return min(planned ?? position, position)
    }

    func handle(ready: [Int32], now: Int64) { show() }

    /// Where the plan has no heard clock while the music plays (an audio side that cannot
    /// say what is heard), the time the screen changes with the position the audio side
    /// reports: an audio side that can watch its position is asked to wake the loop there
    /// (nil then, unless the position is there already); else the loop looks again from the
    /// position last read, which may be a render wake old.
    private func positionDeadline(now: Int64) -> Int64? {
        let appliance = context.appliance
        guard case .playing = appliance.state.transport, last?.heard == false else {
            _ = audio.watchPosition(reaching: nil)
            return nil
        }
        let target = appliance.nextScreenChange(after: appliance.state.position, shown: last?.frame)
        // Set again on every pass (one atomic store): a watch a stale position of another
        // part used up is armed again.
        if audio.watchPosition(reaching: target) {
            // Reached between the loop's read and the watch being set: look again soon
            // (not at once: a frame whose change is behind the position must not spin).
            guard audio.engine.position.frame >= target else { return nil }
            return now + Daemon.positionRecheckNanoseconds
        }
        let frames = max(0, target - appliance.state.position)
        let wait = frames * 1_000_000_000 / Int64(max(1, sampleRate))
        return now + max(wait, Daemon.positionRecheckNanoseconds)
    }

    /// Posts the plan at this instant unless the LCD's thread shows and will show the same.
    func show() {
        let now = context.clock()
        let plan = context.appliance.screenPlan(at: now, clockOrigin: context.clockOrigin)
        // Kept even when it shows the same cells: its times are the newer ones.
        defer { last = plan }
        // What the LCD's thread shows now, and will show, from what was handed to it last.
        let handedLast = last?.upcoming.filter { $0.time > now } ?? []
        let showing = last?.upcoming.last(where: { $0.time <= now })?.frame ?? last?.frame
        let sameUpcoming = handedLast.count == plan.upcoming.count
            && zip(handedLast, plan.upcoming).allSatisfy {
                $0.frame == $1.frame && abs($0.time - $1.time) <= Self.upcomingSlackNanoseconds
            }
        guard plan.frame != showing || !sameUpcoming else { return }
        display.post(plan.frame == showing ? nil : plan.frame, upcoming: plan.upcoming)
    }
}
