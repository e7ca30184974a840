import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// Keeping memory resident: `mlockall`, `mlock`, `mlock2(MLOCK_ONFAULT)`, `munlock`, and
/// giving pages back (`madvise(MADV_DONTNEED)`).
public enum MemoryLock {
    /// Locks the process's memory (`mlockall`): what is mapped now, and with `future` what
    /// is mapped later; with `onFault` a page is locked when first touched, not faulted in ahead.
    public static func lockAll(future: Bool = true, onFault: Bool = true) throws(SystemError) {
        let flags = MCL_CURRENT | (future ? MCL_FUTURE : 0) | (onFault ? MCL_ONFAULT : 0)
        _ = try syscall("mlockall", "the process's memory") { mlockall(Int32(flags)) }
    }

    /// Faults `bytes` in now and keeps them resident (`mlock`).
    public static func lock(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        _ = try syscall("mlock", "\(bytes.count) bytes") { mlock(bytes.baseAddress, bytes.count) }
    }

    /// Locks `bytes` as they are touched, without faulting them in (`mlock2(MLOCK_ONFAULT)`).
    public static func lockOnFault(_ bytes: UnsafeRawBufferPointer) throws(SystemError) {
        _ = try syscall("mlock2", "\(bytes.count) bytes") { segmance_mlock_onfault(bytes.baseAddress, bytes.count) }
    }

    /// Lets `bytes` be paged out again (`munlock`); a range never locked is no error.
    public static func unlock(_ bytes: UnsafeRawBufferPointer) {
        _ = munlock(bytes.baseAddress, bytes.count)
    }

    /// Unlocks the page-aligned `bytes` and drops their pages (`madvise(MADV_DONTNEED)`): a
    /// file's clean pages are read again on the next touch. Whether they were dropped.
    @discardableResult
    public static func drop(_ bytes: UnsafeMutableRawBufferPointer) -> Bool {
        _ = munlock(bytes.baseAddress, bytes.count)
        return madvise(bytes.baseAddress, bytes.count, MADV_DONTNEED) == 0
    }
}
