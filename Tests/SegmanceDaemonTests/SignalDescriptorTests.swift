import Glibc
import Testing
@testable import SegmanceDaemon

@Suite(.tags(.integration)) struct SignalDescriptorTests {
    /// A signal sent to this thread waits in the descriptor instead of running a handler.
    /// SIGUSR2 to this thread only, so the rest of the test process is not touched.
    @Test func aBlockedSignalIsReadFromTheDescriptor() throws {
        let signals = try SignalDescriptor([SIGUSR2])
        #expect(signals.take().isEmpty)
        #expect(pthread_kill(pthread_self(), SIGUSR2) == 0)
        var ready = pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        #expect(signals.take() == [SIGUSR2])
        #expect(signals.take().isEmpty)
    }

    @Test func aWakeIsSeenOnceAndFromAnotherThread() throws {
        let wake = try WakeDescriptor()
        #expect(!wake.clear())
        let thread = try WorkerThread(Waker(wake))
        thread.join()
        var ready = pollfd(fd: wake.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        #expect(wake.clear())
        #expect(!wake.clear())
    }

    final class Waker: ThreadBody {
        let wake: WakeDescriptor
        init(_ wake: WakeDescriptor) { self.wake = wake }
        func threadMain() { wake.wake() }
    }
}
