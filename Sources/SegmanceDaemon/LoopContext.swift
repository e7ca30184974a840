import SegmanceAppliance

/// What the loop's sources share: the appliance they feed, the log, and the core's clock.
final class LoopContext {
    let appliance: Appliance
    let log: Log
    let clock: @Sendable () -> Int64
    /// The core's clock counts from here (the monotonic time `run` began: the first frame
    /// is shown then), as the twin's virtual time counts from 0: a notice raised while
    /// booting (the title of the routine restored) is stamped with time 0 and must last its
    /// duration from the start, not expire at the first tick — nor while the devices were
    /// opened, which took over 1.5 s on a loaded VM, so that the title was never shown.
    var clockOrigin: Int64

    init(appliance: Appliance, log: Log, clock: @escaping @Sendable () -> Int64) {
        self.appliance = appliance
        self.log = log
        self.clock = clock
        clockOrigin = clock()
    }

    /// A time of the core's clock (`PlayerState.now`) on the monotonic clock.
    func monotonic(_ coreTime: Int64) -> Int64 { coreTime + clockOrigin }

    /// A monotonic time on the core's clock.
    func core(_ monotonic: Int64) -> Int64 { monotonic - clockOrigin }
}
