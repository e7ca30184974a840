import CharacterDisplay
import Foundation
import Glibc
import SegmanceDaemon
import Synchronization
import Testing

/// The control loop's SCHED_FIFO (`control_priority`), and the normal priority of what it
/// starts afterwards.
@Suite(.tags(.integration)) struct ControlSchedulingTests {
    struct Seen: Sendable {
        var line = ""
        var policy: Int32 = -1
        var priority: Int32 = -1
        var threadPolicy: Int32 = -1
        var childPolicy: Int32 = -1
    }

    /// The policy of a child process the calling thread starts: `cut` reads its own from
    /// /proc (field 41) and the shell exits with it.
    static func childPolicy() -> Int32 {
        var pid: pid_t = 0
        let arguments = ["/bin/sh", "-c", "exit $(cut -d' ' -f41 /proc/self/stat)"]
        var argv = arguments.map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        guard posix_spawn(&pid, "/bin/sh", nil, nil, &argv, environ) == 0 else { return -1 }
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        return (status >> 8) & 0xff
    }

    @Test func theLoopRunsRealTimeAndWhatItStartsRunsNormally() throws {
        let seen = Mutex(Seen())
        let done = DispatchSemaphore(value: 0)
        // A thread of its own: the test process's threads keep their scheduling.
        let loop = Thread {
            var s = Seen()
            s.line = ControlScheduling.raise(priority: 10)
            s.policy = sched_getscheduler(0)
            var parameter = sched_param()
            sched_getparam(0, &parameter)
            s.priority = parameter.sched_priority
            let started = DispatchSemaphore(value: 0)
            let policy = Mutex<Int32>(-1)
            Thread {
                policy.withLock { $0 = sched_getscheduler(0) }
                started.signal()
            }.start()
            started.wait()
            s.threadPolicy = policy.withLock { $0 }
            s.childPolicy = Self.childPolicy()
            seen.withLock { $0 = s }
            done.signal()
        }
        loop.start()
        done.wait()
        let s = seen.withLock { $0 }
        var limit = rlimit()
        getrlimit(__rlimit_resource_t(__RLIMIT_RTPRIO.rawValue), &limit)
        if geteuid() == 0 || limit.rlim_cur >= 10 {
            #expect(s.line == "control loop: SCHED_FIFO priority 10 (what it starts runs at normal priority)")
            #expect(s.policy == SCHED_FIFO | ControlScheduling.resetOnFork && s.priority == 10, "policy \(s.policy), priority \(s.priority)")
        } else {
            #expect(s.line.hasPrefix("control loop: SCHED_FIFO priority 10 not permitted (sched_setscheduler: "), "\(s.line)")
            #expect(s.policy == SCHED_OTHER)
        }
        #expect(s.threadPolicy == SCHED_OTHER, "a thread it started: policy \(s.threadPolicy)")
        #expect(s.childPolicy == SCHED_OTHER, "a process it started: policy \(s.childPolicy)")
    }

    /// The LCD's thread, just below the loop: SCHED_FIFO at the priority asked for.
    @Test func theLCDThreadIsMadeRealTime() throws {
        let worker = try DisplayWorker(ResilientDisplay(TerminalDisplay(columns: 16, rows: 2, write: { _ in }), log: { _ in }))
        try worker.start()
        defer { worker.stop() }
        let line = worker.raisePriority(9)
        if geteuid() == 0 {
            #expect(line == "LCD thread: SCHED_FIFO priority 9")
            #expect(worker.scheduling?.policy == SCHED_FIFO && worker.scheduling?.priority == 9, "\(String(describing: worker.scheduling))")
        } else {
            #expect(line.hasPrefix("LCD thread: SCHED_FIFO priority 9 not permitted") || worker.scheduling?.policy == SCHED_FIFO, "\(line)")
        }
    }
}
