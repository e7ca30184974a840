import Glibc
import LinuxSystem

/// The control loop's scheduling (`DaemonConfiguration.controlPriority`).
public enum ControlScheduling {
    /// SCHED_RESET_ON_FORK of <linux/sched.h>, which Glibc's module does not export.
    public static let resetOnFork: Int32 = 0x4000_0000

    /// Puts the calling thread in SCHED_FIFO at `priority` with SCHED_RESET_ON_FORK, so that
    /// the threads and processes it starts from then on (an import's child, the stretchers'
    /// maker) run at normal priority. Returns the line to log: what was granted, or why not.
    public static func raise(priority: Int) -> String {
        var parameter = sched_param()
        parameter.sched_priority = Int32(priority)
        // pid 0: the calling thread, not the process.
        guard sched_setscheduler(0, SCHED_FIFO | resetOnFork, &parameter) == 0 else {
            return "control loop: SCHED_FIFO priority \(priority) not permitted (sched_setscheduler: "
                + "\(SystemError.text(errno))); it runs at normal priority"
        }
        return "control loop: SCHED_FIFO priority \(priority) (what it starts runs at normal priority)"
    }
}
