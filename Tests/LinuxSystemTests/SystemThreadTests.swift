import Glibc
import LinuxSystem
import Testing

@Suite struct SystemThreadTests {
    /// The kernel's view of this process's threads: each one's name and scheduling policy
    /// (field 41 of /proc/self/task/TID/stat).
    static func tasks() throws -> [(name: String, policy: Int32)] {
        try Directory("/proc/self/task").names().compactMap { tid in
            guard let comm = read("/proc/self/task/\(tid)/comm"), let stat = read("/proc/self/task/\(tid)/stat"),
                  let close = stat.lastIndex(of: ")") else { return nil }
            // After the name in parentheses, fields 3… are separated by spaces; policy is field 41.
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            guard fields.count > 38, let policy = Int32(fields[38]) else { return nil }
            return (String(comm.dropLast()), policy)
        }
    }

    static func read(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 1024)
        let n = Glibc.read(fd, &buffer, buffer.count)
        return n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : nil
    }

    /// A started thread is under its name in /proc, with the policy it was started with
    /// (SCHED_BATCH: one any process may choose), and it runs its body.
    @Test func aStartedThreadHasItsNameAndPolicy() throws {
        let release = Shared(false)
        let ran = Shared(false)
        let thread = try SystemThread(name: "lsys-batch", scheduling: .batch) {
            ran.current = true
            while !release.current { sleepMonotonic(nanoseconds: 1_000_000) }
        }
        let seen = try Self.tasks().filter { $0.name == "lsys-batch" }
        #expect(seen.count == 1)
        #expect(seen.first?.policy == SystemThread.Scheduling.batch.policy)
        #expect(thread.scheduling == .batch)
        release.current = true
        thread.join()
        #expect(ran.current)
        #expect(try Self.tasks().allSatisfy { $0.name != "lsys-batch" })
    }

    /// A name longer than the kernel keeps is cut to 15 bytes.
    @Test func aLongNameIsCutToFifteenBytes() throws {
        let release = Shared(false)
        let thread = try SystemThread(name: "linuxsystem-long-name") {
            while !release.current { sleepMonotonic(nanoseconds: 1_000_000) }
        }
        #expect(thread.name == "linuxsystem-lon")
        #expect(try Self.tasks().contains { $0.name == "linuxsystem-lon" })
        release.current = true
        thread.join()
    }

    /// SCHED_FIFO: granted where the process may use it (then the kernel shows it), refused
    /// with EPERM otherwise, before the body runs — never silently normal.
    @Test func aRealtimeThreadIsFifoOrRefused() throws {
        let release = Shared(false)
        do {
            let thread = try SystemThread(name: "lsys-fifo", scheduling: .fifo(5)) {
                while !release.current { sleepMonotonic(nanoseconds: 1_000_000) }
            }
            #expect(try Self.tasks().first { $0.name == "lsys-fifo" }?.policy == SCHED_FIFO)
            #expect(thread.scheduling == .fifo(5))
            release.current = true
            thread.join()
        } catch let error as SystemError {
            #expect(error.function == "pthread_setschedparam")
            #expect(error.code == EPERM)
            #expect(error.description == "pthread_setschedparam(thread lsys-fifo): Operation not permitted")
        }
    }

    /// A detached thread runs on its own; join returns at once.
    @Test func aDetachedThreadRunsWithoutAJoin() throws {
        let done = try EventDescriptor()
        let thread = try SystemThread(name: "lsys-detached", detached: true) { done.signal() }
        thread.join()
        var ready = pollfd(fd: done.fileDescriptor, events: Int16(POLLIN), revents: 0)
        #expect(poll(&ready, 1, 5000) == 1)
        #expect(thread.scheduling == nil)
    }
}
