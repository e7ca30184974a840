import Glibc
import LinuxSystem

/// A fresh folder under /tmp, removed with its files when the value goes.
final class ScratchFolder {
    let path: String

    init() {
        path = try! Directory.makeUnique(prefix: "/tmp/linuxsystem-test-").path
    }

    deinit { _ = system("rm -rf '\(path)'") }

    /// Writes an empty file `name` in the folder.
    func touch(_ name: String) {
        let fd = open(path + "/" + name, O_CREAT | O_WRONLY | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "cannot create \(name) in \(path)")
        close(fd)
    }
}

/// Counts SIGUSR1 deliveries; the handler is installed without SA_RESTART, so a blocking call
/// the signal interrupts returns -1 with EINTR.
enum InterruptingSignal {
    nonisolated(unsafe) static var delivered = 0

    static func install() {
        var action = sigaction()
        action.__sigaction_handler.sa_handler = { _ in InterruptingSignal.delivered += 1 }
        sigemptyset(&action.sa_mask)
        action.sa_flags = 0
        sigaction(SIGUSR1, &action, nil)
    }

    /// Lets SIGUSR1 reach the calling thread (the test runner's threads may block it).
    static func unblock() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGUSR1)
        pthread_sigmask(SIG_UNBLOCK, &set, nil)
    }
}

/// A value one thread sets and another reads (under a lock).
final class Shared<Value>: @unchecked Sendable {
    private var value: Value
    private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(lock, nil)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    var current: Value {
        get { pthread_mutex_lock(lock); defer { pthread_mutex_unlock(lock) }; return value }
        set { pthread_mutex_lock(lock); value = newValue; pthread_mutex_unlock(lock) }
    }
}
