import Glibc
import LinuxSystem
import Testing

@Suite(.serialized) struct SystemCallTests {
    /// A read blocked on an empty pipe is interrupted by signals (handler without SA_RESTART);
    /// `syscall` retries it and returns the bytes written afterwards. The same read without
    /// the retry returns -1 with EINTR, so the signals did interrupt it.
    @Test(arguments: [true, false])
    func aSignalInterruptingABlockingReadIsRetried(retrying: Bool) throws {
        InterruptingSignal.install()
        var fds: [Int32] = [-1, -1]
        try #require(pipe(&fds) == 0)
        defer { close(fds[0]); close(fds[1]) }
        let reader = Shared<pthread_t?>(nil)
        let outcome = Shared<(result: Int, code: Int32)?>(nil)
        let readEnd = fds[0]
        let thread = try SystemThread(name: "eintr-reader") {
            InterruptingSignal.unblock()
            reader.current = pthread_self()
            var byte: UInt8 = 0
            if retrying {
                let result = Result { () throws(SystemError) in
                    try syscall("read", "a pipe") { read(readEnd, &byte, 1) }
                }
                switch result {
                case .success(let n): outcome.current = (n, 0)
                case .failure(let error): outcome.current = (-1, error.code)
                }
            } else {
                let n = read(readEnd, &byte, 1)
                outcome.current = (n, n < 0 ? errno : 0)
            }
        }
        while reader.current == nil { sleepMonotonic(nanoseconds: 1_000_000) }
        let before = InterruptingSignal.delivered
        for _ in 0..<3 {
            sleepMonotonic(nanoseconds: 50_000_000)
            if outcome.current != nil { break }
            pthread_kill(reader.current!, SIGUSR1)
        }
        sleepMonotonic(nanoseconds: 50_000_000)
        var byte: UInt8 = 7
        #expect(write(fds[1], &byte, 1) == 1)
        thread.join()
        #expect(InterruptingSignal.delivered > before)
        if retrying {
            #expect(outcome.current?.result == 1)
        } else {
            #expect(outcome.current?.result == -1)
            #expect(outcome.current?.code == EINTR)
        }
    }

    /// A call returning -1 throws the call, its subject and errno.
    @Test func aFailedCallThrowsItsFunctionSubjectAndErrno() {
        #expect(throws: SystemError("open", subject: "/nonexistent/file", code: ENOENT)) {
            _ = try syscall("open", "/nonexistent/file") { open("/nonexistent/file", O_RDONLY) }
        }
    }

    /// What a call returns other than -1 is handed back.
    @Test func aSucceedingCallReturnsItsResult() throws {
        let fd = try syscall("open", "/dev/null") { open("/dev/null", O_RDONLY | O_CLOEXEC) }
        defer { close(fd) }
        #expect(fd >= 0)
    }
}
