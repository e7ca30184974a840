import Glibc
import SegmanceTestSupport
import Testing
@testable import SegmanceDaemon

/// The control loop's wait reports what `poll` would, for each entry in its order.
@Suite struct DescriptorWaitTests {
    let temp = TempDirs()

    @Test func aReadyDescriptorIsReportedAtItsIndex() throws {
        let first = try WakeDescriptor(), second = try WakeDescriptor()
        let wait = try DescriptorWait([(first.fileDescriptor, Int16(POLLIN)), (second.fileDescriptor, Int16(POLLIN))])
        var revents: [Int16] = [7, 7]
        #expect(wait.wait(timeout: 0, revents: &revents) == 0)
        #expect(revents == [0, 0])
        second.wake()
        #expect(wait.wait(timeout: 5000, revents: &revents) == 1)
        #expect(revents == [0, Int16(POLLIN)])
        // Level-triggered, as poll: ready until read.
        #expect(wait.wait(timeout: 0, revents: &revents) == 1)
        #expect(second.clear())
        #expect(wait.wait(timeout: 0, revents: &revents) == 0)
        #expect(revents == [0, 0])
    }

    @Test func aHangUpIsReportedUnasked() throws {
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        defer { close(ends[0]) }
        let wait = try DescriptorWait([(ends[0], Int16(POLLIN))])
        close(ends[1])
        var revents: [Int16] = [0]
        #expect(wait.wait(timeout: 5000, revents: &revents) == 1)
        #expect(revents[0] & Int16(POLLHUP) != 0)
    }

    /// epoll refuses a regular file (a test's stand-in mountinfo); `poll` reports one ready
    /// for reading at once and never for `POLLPRI`, and so does the wait, without blocking.
    @Test func aRegularFileIsReadyAsPollSaysIt() throws {
        let path = try temp.make("wait") + "/file"
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd) }
        let wake = try WakeDescriptor()
        let never = try DescriptorWait([(fd, Int16(POLLPRI | POLLERR)), (wake.fileDescriptor, Int16(POLLIN))])
        var revents: [Int16] = [0, 0]
        #expect(never.wait(timeout: 0, revents: &revents) == 0)
        wake.wake()
        #expect(never.wait(timeout: 5000, revents: &revents) == 1)
        #expect(revents == [0, Int16(POLLIN)])
        let always = try DescriptorWait([(fd, Int16(POLLIN))])
        var one: [Int16] = [0]
        #expect(always.wait(timeout: -1, revents: &one) == 1)
        #expect(one == [Int16(POLLIN)])
    }
}
