import Atomics
import LinuxSystem
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// A probe (`RenderProbe`) that stalls the render thread once before a write, as a stalled
/// system would, or holds it at the start of a chunk of a deep-buffer refill until a
/// command is queued. Its atomics are freed by `destroy()`, once the engine has stopped.
struct HookProbe: RenderProbe {
    /// Nanoseconds to sleep once, before the next write.
    private let stall: UnsafeAtomic<Int> = .create(0)
    /// 1 asks the thread to hold at its next refill's chunk; 2 while it holds.
    private let hold: UnsafeAtomic<Int> = .create(0)

    func destroy() {
        stall.destroy()
        hold.destroy()
    }

    /// The render thread sleeps this long once, before its next write.
    func stallOnce(nanoseconds: Int) { stall.store(nanoseconds, ordering: .relaxed) }

    /// The render thread holds at the start of a chunk of its next refill until a command is
    /// queued (a second at most), and wakes the control side as it begins to
    /// (`isHoldingForCommand`).
    func holdForCommand() { hold.store(1, ordering: .relaxed) }

    /// Whether the render thread holds for a command (`holdForCommand`).
    var isHoldingForCommand: Bool { hold.load(ordering: .acquiring) == 2 }

    func beforeWrite() {
        let nanoseconds = stall.exchange(0, ordering: .relaxed)
        if nanoseconds > 0 { sleepUntilMonotonic(monotonicNanoseconds() &+ Int64(nanoseconds)) }
    }

    func chunkStarting(commandFD: Int32, wakeFD: Int32) {
        guard hold.load(ordering: .relaxed) == 1 else { return }
        hold.store(2, ordering: .releasing)
        EventDescriptor.signal(wakeFD)
        var fd = pollfd(fd: commandFD, events: Int16(POLLIN), revents: 0)
        _ = poll(&fd, 1, 1_000)
        hold.store(0, ordering: .releasing)
    }
}
