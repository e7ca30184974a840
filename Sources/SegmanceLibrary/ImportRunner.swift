import LinuxSystem
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Runs imports for a control loop that must not block: `start` returns at once (or, in
/// the twin, after the import), events are taken with `takeEvents()`, oldest first.
public protocol ImportRunner: AnyObject {
    /// Starts importing the stick at `path`, labelled `label` (nil: none). Ignored while an
    /// import runs.
    func start(_ path: String, label: String?)
    /// Stops the import under way at its next chunk of audio.
    func cancel()
    /// The events produced since the last call.
    func takeEvents() -> [ImportEvent]
    var isRunning: Bool { get }
}

extension ImportRunner {
    /// Starts importing the stick at `path`, which has no label.
    public func start(_ path: String) { start(path, label: nil) }
}

/// Imports on a worker thread. The control loop polls `fileDescriptor` (readable when
/// events wait) alongside its other descriptors, then calls `takeEvents()`.
public final class ThreadedImportRunner: ImportRunner, @unchecked Sendable {
    public let importer: Importer
    /// Readable (POLLIN) when events are waiting.
    public let fileDescriptor: Int32
    private let wakeWrite: Int32
    private let events = Mutex<[ImportEvent]>([])
    private let running = Atomic<Bool>(false)

    public init(importer: Importer) throws(SystemError) {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { throw SystemError("pipe", path: "import events") }
        for fd in fds {
            _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        }
        fileDescriptor = fds[0]
        wakeWrite = fds[1]
        self.importer = importer
    }

    deinit {
        close(fileDescriptor)
        close(wakeWrite)
    }

    public var isRunning: Bool { running.load(ordering: .acquiring) }

    public func start(_ path: String, label: String?) {
        guard running.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else {
            return
        }
        Thread.detachNewThread { [self] in
            importer.run(path, label: label) { [self] event in
                if case .finished = event { running.store(false, ordering: .releasing) }
                post(event)
            }
        }
    }

    public func cancel() { importer.cancel() }

    private func post(_ event: ImportEvent) {
        events.withLock { $0.append(event) }
        var byte: UInt8 = 1
        // A full pipe already says "events waiting": EAGAIN is fine.
        _ = write(wakeWrite, &byte, 1)
    }

    public func takeEvents() -> [ImportEvent] {
        var sink = [UInt8](repeating: 0, count: 256)
        while read(fileDescriptor, &sink, sink.count) > 0 {}
        return events.withLock { pending in
            defer { pending.removeAll() }
            return pending
        }
    }

    /// Blocks until the running import (if any) has finished; for tools and tests.
    public func waitUntilFinished() -> [ImportEvent] {
        var all: [ImportEvent] = []
        while true {
            var fd = pollfd(fd: fileDescriptor, events: Int16(POLLIN), revents: 0)
            all += takeEvents()
            if all.contains(where: { if case .finished = $0 { true } else { false } }) { return all }
            _ = poll(&fd, 1, 1000)
        }
    }
}

/// Imports in the caller's thread, inside `start`: the twin's runner, deterministic in
/// virtual time.
public final class InlineImportRunner: ImportRunner {
    public let importer: Importer
    private var events: [ImportEvent] = []

    public init(importer: Importer) { self.importer = importer }

    public var isRunning: Bool { false }

    public func start(_ path: String, label: String?) {
        let log = EventBox()
        importer.run(path, label: label) { log.events.append($0) }
        events += log.events
    }

    public func cancel() { importer.cancel() }

    public func takeEvents() -> [ImportEvent] {
        defer { events.removeAll() }
        return events
    }
}

/// Collects events from an escaping closure run synchronously.
private final class EventBox: @unchecked Sendable {
    var events: [ImportEvent] = []
}
