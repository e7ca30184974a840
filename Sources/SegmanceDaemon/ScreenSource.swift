import SegmanceAppliance
import SegmanceScreen

/// The LCD in the loop: after every pass the screen at the position heard now is posted to
/// the LCD's thread with the screens that follow it while the music plays on; the loop
/// wakes when the frame on screen changes by itself (a marquee step, a notice's end) or
/// when the last screen handed ahead is due.
final class ScreenSource: LoopSource {
    private let display: DisplayWorker
    private let audio: DaemonAudio
    private let context: LoopContext
    private let sampleRate: Int
    /// The frame rendered last (it says when it changes: `expires`, `changesAtPosition`).
    private var lastFrame: Frame?
    /// The frames handed to the LCD's thread with it, each drawn there when due.
    private var lastUpcoming: [(time: Int64, frame: Frame)] = []

    /// How far ahead, at most, the loop hands the LCD's thread the screens to come.
    static let upcomingNanoseconds: Int64 = 2_000_000_000
    /// Times of a screen to come that differ by no more than this are the same.
    static let upcomingSlackNanoseconds: Int64 = 2_000_000

    init(_ display: DisplayWorker, audio: DaemonAudio, sampleRate: Int, context: LoopContext) {
        self.display = display
        self.audio = audio
        self.sampleRate = sampleRate
        self.context = context
    }

    func deadline(now: Int64) -> Int64? {
        let screenChange = lastFrame?.expires.map(context.monotonic)
        guard let position = positionDeadline(now: now) else { return screenChange }
        return min(screenChange ?? position, position)
    }

    func handle(ready: [Int32], now: Int64) { show() }

    /// When, playing on, the frame on screen changes with the position: the clock's next
    /// second, or the frame's own next change (a beat, a cue); nil when not playing.
    ///
    /// Where the audio side can say what is heard now (its device clock and play history),
    /// the loop times this itself (`Appliance.nextHeardChange`), and the frame it draws
    /// then is drawn at the position heard (`show`): the render thread is not woken for it,
    /// and refills only as the buffer needs. Otherwise, an audio side that can watch its
    /// position is asked to wake the loop there (nil then, unless the position is there
    /// already); else the loop looks again from the position last read, which may be a
    /// render wake old.
    private func positionDeadline(now: Int64) -> Int64? {
        let appliance = context.appliance
        guard case .playing = appliance.state.transport else {
            _ = audio.watchPosition(reaching: nil)
            return nil
        }
        // The LCD's thread draws the screens handed to it; the loop looks again when the
        // last of them is due.
        if let last = lastUpcoming.last, last.time > now {
            _ = audio.watchPosition(reaching: nil)
            return last.time
        }
        if let due = appliance.nextHeardChange(after: now, shown: lastFrame) {
            _ = audio.watchPosition(reaching: nil)
            return due
        }
        let target = appliance.nextScreenChange(after: appliance.state.position, shown: lastFrame)
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

    /// Draws the screen at the position heard now, and hands the LCD's thread the screens
    /// that follow it while the music plays on (`Appliance.upcomingFrames`, up to
    /// `upcomingNanoseconds` ahead and before the frame expires by itself), so that the loop
    /// wakes for the last of them, not for each second and beat.
    func show() {
        let now = context.clock()
        let appliance = context.appliance
        let frame = appliance.frame(at: now)
        let horizon = min(now + Self.upcomingNanoseconds, frame.expires.map(context.monotonic) ?? .max)
        let upcoming = appliance.upcomingFrames(after: now, until: horizon, shown: frame)
        // Kept even when it shows the same cells: its times are the newer ones.
        defer {
            lastFrame = frame
            lastUpcoming = upcoming
        }
        // What the LCD's thread shows now, and will show, from what was handed to it last.
        let handedLast = lastUpcoming.filter { $0.time > now }
        let showing = lastUpcoming.last(where: { $0.time <= now })?.frame ?? lastFrame
        let sameUpcoming = handedLast.count == upcoming.count
            && zip(handedLast, upcoming).allSatisfy {
                $0.frame == $1.frame && abs($0.time - $1.time) <= Self.upcomingSlackNanoseconds
            }
        guard frame != showing || !sameUpcoming else { return }
        display.post(frame == showing ? nil : frame, upcoming: upcoming)
    }
}
