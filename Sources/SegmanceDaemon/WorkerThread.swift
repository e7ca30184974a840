import CLinuxSystem
import Glibc

/// Something that runs on a thread of its own until told to stop.
public protocol ThreadBody: AnyObject {
    func threadMain()
}

/// A plain pthread running a `ThreadBody` (not a Swift concurrency task: the control loop
/// blocks in `poll`, and a worker blocks on its device).
public final class WorkerThread {
    private var thread: pthread_t
    private var joined = false

    private final class Box {
        let body: ThreadBody
        init(_ body: ThreadBody) { self.body = body }
    }

    /// Starts `body.threadMain()` on a new thread; `body` is kept alive until it returns.
    /// `name` (at most 15 bytes) is the thread's name in /proc/PID/task/*/comm, so that
    /// what it costs can be told from the threads libraries start (a benchmark counts them apart).
    public init(_ body: ThreadBody, name: String? = nil) throws(DaemonError) {
        let box = Unmanaged.passRetained(Box(body)).toOpaque()
        var thread = pthread_t()
        // The entry captures nothing (a capturing closure here crashes the 6.3 compiler);
        // the body travels through the argument.
        let result = pthread_create(&thread, nil, { argument in
            let box = Unmanaged<Box>.fromOpaque(argument!).takeRetainedValue()
            box.body.threadMain()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Box>.fromOpaque(box).release()
            throw DaemonError.system(function: "pthread_create", subject: "a worker thread", errno: result)
        }
        self.thread = thread
        if let name { pthread_setname_np(thread, name) }
    }

    /// Puts the thread in SCHED_FIFO at `priority`; 0 or the error number
    /// (`pthread_setschedparam`).
    public func makeRealtime(priority: Int32) -> Int32 {
        var parameter = sched_param()
        parameter.sched_priority = priority
        return pthread_setschedparam(thread, SCHED_FIFO, &parameter)
    }

    /// The thread's policy and priority (`pthread_getschedparam`).
    public var scheduling: (policy: Int32, priority: Int32) {
        var policy: Int32 = 0
        var parameter = sched_param()
        pthread_getschedparam(thread, &policy, &parameter)
        return (policy, parameter.sched_priority)
    }

    /// Waits for the thread to return.
    public func join() {
        guard !joined else { return }
        joined = true
        pthread_join(thread, nil)
    }

    deinit { join() }
}
