import Glibc
import LinuxSystem
import Testing

@Suite struct DescriptorTests {
    static func readable(_ fd: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1
    }

    /// An eventfd adds what each signal brings, from any thread, and a take empties it.
    @Test func anEventCounterCountsAndEmpties() throws {
        let counter = try EventDescriptor()
        #expect(counter.take() == nil)
        #expect(!Self.readable(counter.fileDescriptor, within: 0))
        counter.signal(2)
        let thread = try SystemThread(name: "lsys-signal") { counter.signal(3) }
        thread.join()
        #expect(Self.readable(counter.fileDescriptor, within: 0))
        #expect(counter.take() == 5)
        #expect(counter.take() == nil)
        EventDescriptor.signal(counter.fileDescriptor)
        #expect(EventDescriptor.take(counter.fileDescriptor) == 1)
    }

    /// A signal raised at a thread that blocked it waits in its signalfd. Done on a thread of
    /// its own, so no thread of the test runner keeps the mask.
    @Test func aSignalDescriptorReceivesARaisedSignal() throws {
        let outcome = Shared<(before: [Int32], readable: Bool, taken: [Int32], after: [Int32])?>(nil)
        let thread = try SystemThread(name: "lsys-signalfd") {
            guard let signals = try? SignalDescriptor([SIGUSR2]) else { return }
            let before = signals.take()
            raise(SIGUSR2)
            let readable = Self.readable(signals.fileDescriptor, within: 5000)
            outcome.current = (before, readable, signals.take(), signals.take())
        }
        thread.join()
        let seen = try #require(outcome.current)
        #expect(seen.before.isEmpty)
        #expect(seen.readable)
        #expect(seen.taken == [SIGUSR2])
        #expect(seen.after.isEmpty)
    }

    /// A pidfd of a real child is not readable while it runs and becomes readable when it ends.
    @Test func aProcessDescriptorBecomesReadableWhenTheChildEnds() throws {
        var pid: pid_t = 0
        let words: [String] = ["/bin/sleep", "0.3"]
        let argv: [UnsafeMutablePointer<CChar>?] = words.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        try #require(posix_spawn(&pid, "/bin/sleep", nil, nil, argv, environ) == 0)
        let child = try ProcessDescriptor(pid: pid)
        #expect(!child.hasEnded)
        #expect(child.waitUntilEnded(milliseconds: 10_000))
        #expect(child.hasEnded)
        var status: Int32 = 0
        #expect(waitpid(pid, &status, WNOHANG) == pid)
    }

    /// A process that does not exist has no descriptor; the error names it.
    @Test func aMissingProcessThrows() {
        #expect(throws: SystemError("pidfd_open", subject: "process 2147483600", code: ESRCH)) {
            _ = try ProcessDescriptor(pid: 2_147_483_600)
        }
    }

    /// A timer is readable once its deadline passed, not before, and counts one expiry.
    @Test func aTimerFiresAtItsDeadline() throws {
        let timer = try TimerDescriptor()
        let deadline = monotonicNanoseconds() + 30_000_000
        try timer.arm(at: deadline)
        #expect(!Self.readable(timer.fileDescriptor, within: 0))
        #expect(Self.readable(timer.fileDescriptor, within: 5000))
        #expect(monotonicNanoseconds() >= deadline)
        #expect(timer.take() == 1)
        #expect(timer.take() == 0)
        try timer.arm(at: monotonicNanoseconds() + 10_000_000)
        try timer.disarm()
        #expect(!Self.readable(timer.fileDescriptor, within: 50))
    }
}
