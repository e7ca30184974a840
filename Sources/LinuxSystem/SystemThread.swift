import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A POSIX thread, the one way the project starts one: named (its name in
/// /proc/PID/task/*/comm tells what it is), with a scheduling policy and priority when asked,
/// joinable or detached. For work that blocks (a device, `poll`, a lock), not a Swift
/// concurrency task.
public final class SystemThread {
    /// A scheduling policy (`SCHED_OTHER`, `SCHED_FIFO`, `SCHED_RR`) and its priority.
    public struct Scheduling: Equatable, Sendable {
        /// `SCHED_…`.
        public var policy: Int32
        /// The static priority: 1…99 for the real-time policies, 0 for `SCHED_OTHER`.
        public var priority: Int32

        /// A policy and priority.
        public init(policy: Int32, priority: Int32) {
            self.policy = policy
            self.priority = priority
        }

        /// `SCHED_FIFO` at `priority`.
        public static func fifo(_ priority: Int32) -> Scheduling {
            Scheduling(policy: Int32(SCHED_FIFO), priority: priority)
        }

        /// The normal time-shared policy (`SCHED_OTHER`).
        public static let normal = Scheduling(policy: Int32(SCHED_OTHER), priority: 0)

        /// `SCHED_BATCH`: time-shared, for work that is never waited on by a person; any
        /// process may choose it.
        public static let batch = Scheduling(policy: segmance_sched_batch, priority: 0)
    }

    /// The name the thread was started with (cut to the kernel's 15 bytes).
    public let name: String
    private let handle: pthread_t
    private var joinable: Bool

    /// What travels to the new thread: its name, scheduling and body, and how it tells the
    /// starter that it is set up (0) or why not (an error number, with the call).
    private final class Box {
        let name: String
        let scheduling: Scheduling?
        let body: () -> Void
        let ready = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
        var failure: (function: String, code: Int32)?

        init(_ name: String, _ scheduling: Scheduling?, _ body: @escaping () -> Void) {
            self.name = name
            self.scheduling = scheduling
            self.body = body
            sem_init(ready, 0, 0)
        }

        deinit {
            sem_destroy(ready)
            ready.deallocate()
        }

        /// On the new thread: names it and sets its scheduling, tells the starter, then runs
        /// the body unless the scheduling was refused.
        func run() {
            pthread_setname_np(pthread_self(), name)
            if let scheduling {
                var parameter = sched_param()
                parameter.sched_priority = scheduling.priority
                let result = pthread_setschedparam(pthread_self(), scheduling.policy, &parameter)
                if result != 0 { failure = ("pthread_setschedparam", result) }
            }
            let refused = failure != nil
            sem_post(ready)
            if !refused { body() }
        }
    }

    /// Starts `body` on a new thread named `name` (at most 15 bytes are kept).
    ///
    /// `scheduling` gives it that policy and priority before `body` runs; when the process
    /// may not use it (EPERM) this throws and `body` never runs, so the caller can start it
    /// without. `stackBytes` sets its stack size; `detached` lets it end on its own (then
    /// `join()` does nothing). A joinable thread is joined when this object goes. Returns once
    /// the thread is named and scheduled.
    public init(
        name: String, scheduling: Scheduling? = nil, stackBytes: Int? = nil, detached: Bool = false,
        _ body: @escaping () -> Void
    ) throws(SystemError) {
        let kept = Self.kernelName(name)
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        if let stackBytes {
            let result = pthread_attr_setstacksize(&attributes, stackBytes)
            guard result == 0 else {
                throw SystemError("pthread_attr_setstacksize", subject: "thread \(kept)", code: result)
            }
        }
        if detached { pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED)) }
        let box = Box(kept, scheduling, body)
        let argument = Unmanaged.passRetained(box).toOpaque()
        var handle = pthread_t()
        // The entry captures nothing (a capturing closure here crashes the 6.3 compiler):
        // the box travels through the argument.
        let result = pthread_create(&handle, &attributes, { argument in
            Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue().run()
            return nil
        }, argument)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(argument).release()
            throw SystemError("pthread_create", subject: "thread \(kept)", code: result)
        }
        while sem_wait(box.ready) != 0 {}
        self.name = kept
        self.handle = handle
        joinable = !detached
        if let failure = box.failure {
            join()
            throw SystemError(failure.function, subject: "thread \(kept)", code: failure.code)
        }
    }

    /// The thread's policy and priority now (`pthread_getschedparam`); nil once it was
    /// joined or when it was started detached.
    public var scheduling: Scheduling? {
        guard joinable else { return nil }
        var policy: Int32 = 0
        var parameter = sched_param()
        guard pthread_getschedparam(handle, &policy, &parameter) == 0 else { return nil }
        return Scheduling(policy: policy, priority: parameter.sched_priority)
    }

    /// Changes the running thread's policy and priority (`pthread_setschedparam`).
    public func setScheduling(_ scheduling: Scheduling) throws(SystemError) {
        guard joinable else { throw SystemError("pthread_setschedparam", subject: "thread \(name)", code: ESRCH) }
        var parameter = sched_param()
        parameter.sched_priority = scheduling.priority
        let result = pthread_setschedparam(handle, scheduling.policy, &parameter)
        guard result == 0 else { throw SystemError("pthread_setschedparam", subject: "thread \(name)", code: result) }
    }

    /// Waits for the thread to return (once; later calls and a detached thread return at once).
    public func join() {
        guard joinable else { return }
        joinable = false
        pthread_join(handle, nil)
    }

    /// Lets the thread end on its own: nothing waits for it afterwards.
    public func detach() {
        guard joinable else { return }
        joinable = false
        pthread_detach(handle)
    }

    deinit { join() }

    /// Names the calling thread (at most 15 bytes are kept).
    public static func nameCurrent(_ name: String) {
        pthread_setname_np(pthread_self(), kernelName(name))
    }

    /// `name` cut to 15 bytes on a character boundary, the most a thread name holds.
    static func kernelName(_ name: String) -> String {
        var kept = ""
        for character in name {
            guard kept.utf8.count + String(character).utf8.count <= 15 else { break }
            kept.append(character)
        }
        return kept
    }
}
