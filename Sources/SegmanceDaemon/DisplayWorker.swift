import CharacterDisplay
import Glibc
import MonotonicTime
import SegmanceScreen
import Synchronization

/// Draws frames on the LCD from a thread of its own. An HD44780 behind an I2C backpack
/// takes tens of milliseconds for a full screen (every nibble is several SMBus writes, each
/// ~0.1 ms at 100 kHz); on the control loop that would delay the next button's command to
/// the audio side by as much. The loop only posts the newest frame; frames the display had
/// no time for are skipped, never queued.
public final class DisplayWorker: ThreadBody, @unchecked Sendable {
    private struct Mailbox {
        var frame: Frame?
        var stopping = false
    }

    private let display: ResilientDisplay
    private let mailbox = Mutex(Mailbox())
    private let wake: WakeDescriptor
    private var thread: WorkerThread?
    private let clock: @Sendable () -> Int64

    /// Shows frames on `display`, retrying a failing one every `display.retryInterval`.
    public init(_ display: ResilientDisplay, clock: @escaping @Sendable () -> Int64 = monotonicNanoseconds) throws(DaemonError) {
        self.display = display
        self.clock = clock
        wake = try WakeDescriptor()
    }

    /// Starts the drawing thread.
    public func start() throws(DaemonError) {
        thread = try WorkerThread(self, name: "segmance-lcd")
    }

    /// Hands over the newest frame; returns at once.
    public func post(_ frame: Frame) {
        mailbox.withLock { $0.frame = frame }
        wake.wake()
    }

    /// Draws what was posted last, then ends the thread.
    public func stop() {
        mailbox.withLock { $0.stopping = true }
        wake.wake()
        thread?.join()
        thread = nil
    }

    public func threadMain() {
        while true {
            // A failing display is retried on a timer even when no new frame comes.
            var fds = pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let timeout: Int32 = display.isFailing ? Int32(clamping: display.retryInterval / 1_000_000) : -1
            _ = poll(&fds, 1, timeout)
            wake.clear()
            let (frame, stopping) = mailbox.withLock { box in
                defer { box.frame = nil }
                return (box.frame, box.stopping)
            }
            if let frame { display.show(frame, now: clock()) } else { display.retry(now: clock()) }
            if stopping { return }
        }
    }
}
