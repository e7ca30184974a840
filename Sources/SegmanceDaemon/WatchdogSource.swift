/// systemd's watchdog (`WATCHDOG=1` every half of `WatchdogSec`), and the saves that failed,
/// tried again when due (the retry runs with the core's clock, at the top of the pass the
/// loop wakes for).
final class WatchdogSource: LoopSource {
    private let notifier: SystemdNotifier
    private let context: LoopContext
    private let interval: Int64?
    private var next: Int64?

    init(_ notifier: SystemdNotifier, context: LoopContext) {
        self.notifier = notifier
        self.context = context
        interval = notifier.watchdogInterval.map { $0 / 2 }
    }

    /// The first ping is due an interval after `now`.
    func start(now: Int64) { next = interval.map { now + $0 } }

    func deadline(now: Int64) -> Int64? {
        let retry = context.appliance.nextSaveRetry.map(context.monotonic)
        guard let next else { return retry }
        return min(retry ?? next, next)
    }

    func handle(ready: [Int32], now: Int64) {
        guard let interval, let due = next, now >= due else { return }
        _ = notifier.notify("WATCHDOG=1")
        next = now + interval
    }
}
