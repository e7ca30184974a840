import CharacterDisplay
import Glibc
import LinuxSystem
import SegmanceScreen
import Synchronization

/// Draws frames on the LCD from a thread of its own. An HD44780 behind an I2C backpack
/// takes tens of milliseconds for a full screen (every nibble is several SMBus writes, each
/// ~0.1 ms at 100 kHz); on the control loop that would delay the next button's command to
/// the audio side by as much. The loop only posts the newest frame; frames the display had
/// no time for are skipped, never queued.
public final class DisplayWorker: @unchecked Sendable {
    private struct Mailbox {
        var posted = false
        var frame: Frame?
        var upcoming: [(time: Int64, frame: Frame)] = []
        var stopping = false
    }

    private let display: ResilientDisplay
    private let mailbox = Mutex(Mailbox())
    private let wake: EventDescriptor
    private var thread: SystemThread?
    private let clock: @Sendable () -> Int64
    private let willPoll: (@Sendable (Int64) -> Void)?

    /// Shows frames on `display`, retrying a failing one every `display.retryInterval`.
    /// `willPoll` is told, on the drawing thread, how long each wait is for (ns of `clock`,
    /// -1: until a post), so that a test can move a virtual clock and see what the thread
    /// waits for without the wall clock.
    public init(_ display: ResilientDisplay, clock: @escaping @Sendable () -> Int64 = monotonicNanoseconds,
                willPoll: (@Sendable (Int64) -> Void)? = nil) throws(DaemonError) {
        self.display = display
        self.clock = clock
        self.willPoll = willPoll
        wake = try DaemonError.system { () throws(SystemError) in try EventDescriptor() }
    }

    /// The drawing thread's stack (it formats a frame and writes it to the bus): locked in
    /// full with the rest of memory, where glibc's default would be 8 MB.
    static let stackBytes = 1 << 20

    /// Starts the drawing thread.
    public func start() throws(DaemonError) {
        thread = try DaemonError.system { () throws(SystemError) in
            try SystemThread(name: "segmance-lcd", stackBytes: Self.stackBytes) { [self] in threadMain() }
        }
    }

    /// Puts the drawing thread in SCHED_FIFO at `priority` (just below the control loop's):
    /// a frame the loop posts is then drawn at once, not when the ordinary threads let it, so
    /// a screen that lasts a few milliseconds (the loop's first pass, shown from the B mark
    /// until the wrap is heard) is not skipped. Returns the line to log.
    public func raisePriority(_ priority: Int) -> String {
        guard let thread else { return "LCD thread: not started" }
        do {
            try thread.setScheduling(.fifo(Int32(priority)))
        } catch {
            return "LCD thread: SCHED_FIFO priority \(priority) not permitted (\(error.function): "
                + "\(error.message)); it runs at normal priority"
        }
        return "LCD thread: SCHED_FIFO priority \(priority)"
    }

    /// The drawing thread's policy and priority; nil before `start`.
    public var scheduling: (policy: Int32, priority: Int32)? {
        thread?.scheduling.map { ($0.policy, $0.priority) }
    }

    /// Hands over the newest frame (nil: the screen stays as it is, or shows the frame
    /// handed before and not drawn yet), and the frames due after it (in order of their
    /// times, `clock`'s nanoseconds), which replace those handed before; returns at once.
    public func post(_ frame: Frame?, upcoming: [(time: Int64, frame: Frame)] = []) {
        mailbox.withLock { box in
            // A frame not drawn yet stays to be drawn: nil says only that nothing changed.
            if frame != nil || !box.posted { box.frame = frame }
            box.posted = true
            box.upcoming = upcoming
        }
        // Always woken: the frames handed must be taken now, whatever the thread is waiting for.
        wake.signal()
    }

    /// Wakes the drawing thread to read its clock again, with nothing posted: for a clock
    /// that is not the monotonic one (a test's virtual clock, moved).
    func clockMoved() {
        wake.signal()
    }

    /// Draws what was posted last, then ends the thread.
    public func stop() {
        mailbox.withLock { $0.stopping = true }
        wake.signal()
        thread?.join()
        thread = nil
    }

    private func threadMain() {
        var upcoming: [(time: Int64, frame: Frame)] = []
        var next = 0
        while true {
            // A failing display is retried on a timer even when no new frame comes.
            var timeout: Int64 = display.isFailing ? display.retryInterval : -1
            if next < upcoming.count {
                let wait = max(0, upcoming[next].time - Self.earlyNanoseconds - clock())
                timeout = timeout < 0 ? wait : min(timeout, wait)
            }
            willPoll?(timeout)
            var fds = pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)
            _ = poll(&fds, 1, timeout < 0 ? -1 : Int32(clamping: (timeout + 999_999) / 1_000_000))
            if fds.revents != 0 { wake.take() }
            let (posted, frame, handed, stopping) = mailbox.withLock { box in
                defer {
                    box.posted = false
                    box.frame = nil
                    box.upcoming = []
                }
                return (box.posted, box.frame, box.upcoming, box.stopping)
            }
            let now = clock()
            var drawn = false
            if posted {
                // A frame handed before and due now is drawn unless the post brings one of its
                // own: the loop wakes at the time of the last frame it handed, takes that frame
                // as shown, and its post (nothing new to draw now) may come before this
                // thread's timer for it (the box's LCD went from 0:03 to 0:05).
                if frame == nil, next < upcoming.count, upcoming[next].time - Self.earlyNanoseconds <= now {
                    while next + 1 < upcoming.count, upcoming[next + 1].time - Self.earlyNanoseconds <= now {
                        next += 1
                    }
                    display.show(upcoming[next].frame, now: now)
                    drawn = true
                }
                upcoming = handed
                next = 0
                if let frame {
                    display.show(frame, now: now)
                    drawn = true
                }
            }
            if next < upcoming.count, upcoming[next].time - Self.earlyNanoseconds <= now {
                // The newest one due: one missed while drawing is not drawn late.
                while next + 1 < upcoming.count, upcoming[next + 1].time - Self.earlyNanoseconds <= now { next += 1 }
                display.show(upcoming[next].frame, now: now)
                next += 1
                drawn = true
            }
            if !drawn { display.retry(now: now) }
            if stopping { return }
        }
    }

    /// How early a frame handed ahead may be drawn (a timer that fires a little before
    /// its time is not slept on again for it).
    static let earlyNanoseconds: Int64 = 1_000_000
}
