#if canImport(Glibc)
import Glibc
#endif

/// A pthread running `body`, joined with `join()`: the tests' second thread, started with
/// nothing between it and the test's thread but what the code under test shares.
final class TestThread: @unchecked Sendable {
    private let body: () -> Void
    private var thread = pthread_t()

    init(_ body: @escaping () -> Void) {
        self.body = body
        let started = pthread_create(&thread, nil, { raw in
            Unmanaged<TestThread>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, Unmanaged.passRetained(self).toOpaque())
        precondition(started == 0, "pthread_create: \(started)")
    }

    func join() { pthread_join(thread, nil) }
}
