import Glibc
import LinuxSystem

/// SIGTERM and SIGINT (through their `signalfd`) and `Daemon.stop()` (its wake): either
/// ends the loop after the pass.
final class TerminationSource: LoopSource {
    private let signals: SignalDescriptor
    private let stopRequest: EventDescriptor
    private let log: Log
    /// Told when the loop is to end.
    var stop: () -> Void = {}

    init(signals: SignalDescriptor, stopRequest: EventDescriptor, log: Log) {
        self.signals = signals
        self.stopRequest = stopRequest
        self.log = log
    }

    var descriptors: [(fd: Int32, events: Int16)] {
        [(signals.fileDescriptor, DaemonLoop.readable), (stopRequest.fileDescriptor, DaemonLoop.readable)]
    }

    func handle(ready: [Int32], now: Int64) {
        if ready.contains(signals.fileDescriptor) {
            for s in signals.take() {
                log.notice("signal \(s == SIGTERM ? "SIGTERM" : s == SIGINT ? "SIGINT" : String(s)): stopping")
                stop()
            }
        }
        if ready.contains(stopRequest.fileDescriptor) {
            stopRequest.take()
            stop()
        }
    }
}
