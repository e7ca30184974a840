import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// What a child process sets up for itself once started: the descriptors it keeps, and
/// ending with its parent.
public enum CurrentProcess {
    /// Closes every descriptor from `first` up (`close_range`).
    public static func closeDescriptors(from first: Int32) throws(SystemError) {
        _ = try syscall("close_range", "descriptors from \(first)") { segmance_close_from(UInt32(max(0, first))) }
    }

    /// The process gets `signal` when its parent ends (`prctl(PR_SET_PDEATHSIG)`).
    public static func signalWhenParentEnds(_ signal: Int32) throws(SystemError) {
        _ = try syscall("prctl", "PR_SET_PDEATHSIG") { segmance_parent_death_signal(signal) }
    }
}
