#if canImport(Glibc)
import Glibc
#endif

/// Runs a system call until it is not interrupted by a signal (-1 with EINTR) and returns
/// what it returned last; errno tells why when that is -1. No allocation.
@inlinable
public func retryingEINTR<T: FixedWidthInteger>(_ call: () -> T) -> T {
    while true {
        let result = call()
        if result != -1 || errno != EINTR { return result }
    }
}

/// Runs a system call, retrying it while a signal interrupts it (EINTR), and throws a
/// `SystemError(function, subject, errno)` when it returns -1; returns its result otherwise.
/// `subject` is built only on failure.
@inlinable
public func syscall<T: FixedWidthInteger>(
    _ function: String, _ subject: @autoclosure () -> String, _ call: () -> T
) throws(SystemError) -> T {
    let result = retryingEINTR(call)
    guard result != -1 else { throw SystemError(function, subject: subject(), code: errno) }
    return result
}
