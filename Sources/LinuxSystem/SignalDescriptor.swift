import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// Signals as a readable descriptor (`signalfd`, nonblocking, close-on-exec), so a loop sees
/// SIGTERM in its one `poll` like any other input instead of in an async handler.
///
/// The signals are blocked for the calling thread; make it before starting any other
/// thread so every thread inherits the mask and the signal is left for the descriptor.
public final class SignalDescriptor {
    /// The descriptor to poll: readable while one of `signals` is pending.
    public let fileDescriptor: Int32
    /// The signals it receives.
    public let signals: [Int32]

    /// Blocks `signals` for the calling thread and receives them on a new descriptor.
    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) throws(SystemError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        let blocked = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard blocked == 0 else { throw SystemError("pthread_sigmask", subject: "signals \(signals)", code: blocked) }
        fileDescriptor = try syscall("signalfd", "signals \(signals)") {
            signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        }
        self.signals = signals
    }

    deinit { close(fileDescriptor) }

    /// The signals received since the last call, oldest first; never blocks.
    public func take() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        let size = MemoryLayout<signalfd_siginfo>.size
        while retryingEINTR({ read(fileDescriptor, &info, size) }) == size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}
