import Dispatch
import Glibc
import LinuxInput
import LinuxSystem
import SegmanceAudio
import SegmanceBoard
import SegmanceCore
import Synchronization
@testable import SegmanceDaemon

/// The audio side as a list of the commands it was sent.
final class RecordingAudioEngine: AudioEngine, @unchecked Sendable {
    let sent = Mutex<[StampedCommand]>([])
    func send(_ command: StampedCommand) { sent.withLock { $0.append(command) } }
    func takeReports() -> [AudioReport] { [] }
    var position: (frame: Int64, epoch: UInt32) { (0, 0) }
    func heard(at time: Int64) -> HeardFrame? { nil }
}

/// Text the daemon writes, with a way to wait until something appears in it.
final class Transcript: @unchecked Sendable {
    private let text = Mutex<[String]>([])
    private let changed = DispatchSemaphore(value: 0)

    func append(_ line: String) {
        text.withLock { $0.append(line) }
        changed.signal()
    }

    var lines: [String] { text.withLock { $0 } }

    /// Waits until a line satisfies `match`, up to `seconds`; true if one did.
    func wait(seconds: Double = 10, for match: (String) -> Bool) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while true {
            if lines.contains(where: match) { return true }
            if changed.wait(timeout: deadline) == .timedOut { return lines.contains(where: match) }
        }
    }
}

/// A folder standing in for /dev/input, with FIFOs standing in for evdev nodes.
final class FakeInputDirectory {
    let path: String
    private var writers: [String: Int32] = [:]

    init() {
        path = "/tmp/segmance-daemon-input-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        mkdir(path, 0o700)
    }

    deinit {
        for fd in writers.values { close(fd) }
        for name in ["event0", "event1", "event2"] { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// Plugs in a device node; the daemon's watcher sees it appear.
    func plug(_ name: String) {
        precondition(mkfifo(path + "/" + name, 0o600) == 0)
    }

    /// Writes key events as the kernel would, stamped with the monotonic clock now.
    func key(_ name: String, code: UInt16, down: Bool) {
        if writers[name] == nil {
            writers[name] = open(path + "/" + name, O_WRONLY | O_NONBLOCK)
        }
        let now = monotonicNanoseconds()
        let s = now / 1_000_000_000, us = (now % 1_000_000_000) / 1000
        let bytes = [InputEvent(seconds: s, microseconds: us, type: 1, code: code, value: down ? 1 : 0),
                     InputEvent(seconds: s, microseconds: us, type: 0, code: 0, value: 0)].flatMap { $0.encoded() }
        _ = write(writers[name]!, bytes, bytes.count)
    }

    /// Writes a relative motion (REL_X: an encoder's detents) as the kernel would.
    func turn(_ name: String, by detents: Int32) {
        if writers[name] == nil {
            writers[name] = open(path + "/" + name, O_WRONLY | O_NONBLOCK)
        }
        let now = monotonicNanoseconds()
        let s = now / 1_000_000_000, us = (now % 1_000_000_000) / 1000
        let bytes = [InputEvent(seconds: s, microseconds: us, type: 2, code: 0, value: detents),
                     InputEvent(seconds: s, microseconds: us, type: 0, code: 0, value: 0)].flatMap { $0.encoded() }
        _ = write(writers[name]!, bytes, bytes.count)
    }

    func unplug(_ name: String) {
        if let fd = writers.removeValue(forKey: name) { close(fd) }
        unlink(path + "/" + name)
    }
}

/// Runs a daemon on a thread of its own.
final class DaemonThread: ThreadBody, @unchecked Sendable {
    let daemon: Daemon
    let finished = DispatchSemaphore(value: 0)
    let error = Mutex<String?>(nil)
    private var thread: WorkerThread?

    init(_ daemon: Daemon) throws {
        self.daemon = daemon
        thread = try WorkerThread(self)
    }

    func threadMain() {
        do { try daemon.run() } catch { self.error.withLock { $0 = "\(error)" } }
        finished.signal()
    }

    /// Stops the daemon and waits for `run` to return; false if it did not within 10 s.
    func stop() -> Bool {
        daemon.stop()
        let done = finished.wait(timeout: .now() + 10) == .success
        if done { thread?.join() }
        return done
    }
}
