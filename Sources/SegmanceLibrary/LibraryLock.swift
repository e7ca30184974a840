#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif

/// The library's writer lock (`flock` on `import.lock`): one import or removal at a time,
/// across processes (the daemon and `segmance import` over ssh). The kernel drops it when
/// its holder dies, so a killed importer never leaves the library locked.
final class LibraryLock {
    private let fd: Int32

    /// Takes the lock, waiting for it when `wait`; nil when it is held elsewhere and not `wait`.
    init?(directory: String, wait: Bool) throws(SystemError) {
        let path = directory + "/import.lock"
        fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SystemError("open", path: path) }
        let result = retryingEINTR { flock(fd, LOCK_EX | (wait ? 0 : LOCK_NB)) }
        if result != 0 {
            let code = errno
            close(fd)
            if code == EWOULDBLOCK { return nil }
            throw SystemError("flock", path: path, code: code)
        }
    }

    deinit { close(fd) }
}
