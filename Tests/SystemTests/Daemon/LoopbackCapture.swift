import ALSA
import Foundation
import Glibc
import Synchronization

/// Records what reaches the snd-aloop card's capture side (what the daemon plays to
/// hw:Loopback,0,0 comes out of hw:Loopback,1,0) from a thread of its own, with the
/// monotonic time each stretch was captured, so a test can wait for sound and tell when a
/// sample sounded. snd-aloop moves its pointers on a jiffies timer (4 ms at HZ=250): the
/// times are that coarse.
final class LoopbackCapture: @unchecked Sendable {
    let device: PCMDevice
    let rate: Int
    /// Frames the storage holds; the capture stops when it is full.
    let capacity: Int
    private let storage: UnsafeMutablePointer<Int16>
    private let captured = Atomic<Int>(0)
    /// After each read: the frame that had just been captured, and when.
    private let stamps = Mutex<[(frame: Int, time: Int64)]>([])
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let failure = Mutex<String?>(nil)
    private let periodFrames: Int

    init(name: String = "hw:Loopback,1,0", seconds: Int, periodFrames: Int = 1024, periods: Int = 32) throws {
        device = try PCMDevice(name: name, stream: .capture)
        let granted = try device.configure(PCMConfiguration(format: .s16LE, channels: 2, rate: 48_000,
                                                            periodFrames: periodFrames, periodCount: periods))
        rate = granted.rate
        self.periodFrames = granted.periodFrames
        capacity = seconds * rate
        storage = .allocate(capacity: capacity * 2)
        storage.initialize(repeating: 0, count: capacity * 2)
    }

    deinit {
        stop()
        storage.deallocate()
    }

    /// Starts the device and the reading thread (SCHED_FIFO when permitted: the VM stalls,
    /// and an overrun would lose audio the comparison needs).
    func start() throws {
        try device.start()
        running.store(true, ordering: .releasing)
        Thread { [self] in run() }.start()
    }

    /// Stops reading and waits for the thread.
    func stop() {
        stopping.store(true, ordering: .releasing)
        while running.load(ordering: .acquiring) { Box.hold(milliseconds: 5) }
    }

    private func run() {
        defer { running.store(false, ordering: .releasing) }
        Box.makeRealtime(priority: 60)
        while !stopping.load(ordering: .acquiring) {
            let done = captured.load(ordering: .relaxed)
            guard done < capacity else { return }
            do {
                let n = try device.readInterleaved(into: storage + done * 2, frames: min(periodFrames, capacity - done))
                let now = Box.now()
                let waiting = (try? device.delay()) ?? 0
                captured.store(done + n, ordering: .releasing)
                stamps.withLock { $0.append((done + n + waiting, now)) }
            } catch {
                failure.withLock { $0 = "\(device.name): \(error)" }
                return
            }
        }
    }

    /// Frames captured so far.
    var frames: Int { captured.load(ordering: .acquiring) }

    /// Why the capture stopped early (an overrun, a failed read), nil while it is fine.
    var problem: String? { failure.withLock { $0 } }

    /// Interleaved samples of frames `range` (clipped to what was captured).
    func samples(_ range: Range<Int>? = nil) -> [Int16] {
        let all = 0..<frames
        let r = (range ?? all).clamped(to: all)
        return Array(UnsafeBufferPointer(start: storage + r.lowerBound * 2, count: r.count * 2))
    }

    /// When frame `frame` was captured (monotonic ns), from the read that brought it.
    func time(ofFrame frame: Int) -> Int64? {
        stamps.withLock { stamps in
            guard let stamp = stamps.first(where: { $0.frame > frame }) else { return nil }
            return stamp.time - Int64(stamp.frame - frame) * 1_000_000_000 / Int64(rate)
        }
    }

    private func isSilent(_ frame: Int) -> Bool { storage[frame * 2] == 0 && storage[frame * 2 + 1] == 0 }

    /// The first frame at or after `from` with sound, waiting at most `timeout` seconds.
    func waitForSound(from: Int, timeout: Double) -> Int? {
        let deadline = Box.now() + Int64(timeout * 1e9)
        var frame = from
        while true {
            let available = frames
            while frame < available {
                if !isSilent(frame) { return frame }
                frame += 1
            }
            if Box.now() > deadline || problem != nil { return nil }
            Box.hold(milliseconds: 2)
        }
    }

    /// The first frame at or after `from` that begins `length` silent frames, waiting at
    /// most `timeout` seconds.
    func waitForSilence(from: Int, length: Int, timeout: Double) -> Int? {
        let deadline = Box.now() + Int64(timeout * 1e9)
        var start = from
        var frame = from
        while true {
            let available = frames
            while frame < available {
                if !isSilent(frame) { start = frame + 1 } else if frame + 1 - start >= length { return start }
                frame += 1
            }
            if Box.now() > deadline || problem != nil { return nil }
            Box.hold(milliseconds: 2)
        }
    }
}
