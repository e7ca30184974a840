import CLinuxSystem
import Glibc

/// Termination signals as a readable descriptor (`signalfd`), so the control loop sees
/// SIGTERM in its one `poll` like any other input instead of in an async handler.
///
/// The signals are blocked for the calling thread; make it before starting any other
/// thread so every thread inherits the mask and the signal is left for the descriptor.
public final class SignalDescriptor {
    public let fileDescriptor: Int32
    public let signals: [Int32]

    public init(_ signals: [Int32] = [SIGTERM, SIGINT]) throws(DaemonError) {
        var mask = sigset_t()
        sigemptyset(&mask)
        for s in signals { sigaddset(&mask, s) }
        let blocked = pthread_sigmask(SIG_BLOCK, &mask, nil)
        guard blocked == 0 else {
            throw DaemonError.system(function: "pthread_sigmask", subject: "signals \(signals)", errno: blocked)
        }
        let fd = signalfd(-1, &mask, Int32(SFD_NONBLOCK | SFD_CLOEXEC))
        guard fd >= 0 else {
            throw DaemonError.system(function: "signalfd", subject: "signals \(signals)", errno: errno)
        }
        fileDescriptor = fd
        self.signals = signals
    }

    deinit { close(fileDescriptor) }

    /// The signals received since the last call, oldest first; never blocks.
    public func take() -> [Int32] {
        var received: [Int32] = []
        var info = signalfd_siginfo()
        while read(fileDescriptor, &info, MemoryLayout<signalfd_siginfo>.size) == MemoryLayout<signalfd_siginfo>.size {
            received.append(Int32(info.ssi_signo))
        }
        return received
    }
}
