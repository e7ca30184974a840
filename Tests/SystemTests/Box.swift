import Glibc
import Testing

/// The board in a box: a qemu VM running Debian's kernel with the simulated hardware of
/// board/sim-vm.toml (gpio-sim, i2c-stub at 0x27, snd-aloop, uinput). Tests/System/run.sh
/// boots it, brings the hardware up (Tests/System/guest/hardware.sh) and runs this target
/// in it with SEGMANCE_BOX=1. Anywhere else these tests are skipped: the drivers exist only
/// in the VM.
enum Box {
    /// Whether this process runs in the box with its hardware up.
    static let isRunning = getenv("SEGMANCE_BOX").map { String(cString: $0) == "1" } ?? false

    /// Why the tests are skipped elsewhere.
    static let skipReason: Comment = "needs the board in a box (gpio-sim, i2c-stub, snd-aloop, uinput): run Tests/System/run.sh"

    /// The repository's root folder.
    static let repository: String = {
        var path = "\(#filePath)"
        for _ in 0..<3 { path = String(path[..<path.lastIndex(of: "/")!]) } // Tests/SystemTests/Box.swift
        return path
    }()

    /// The repository's board/ folder.
    static let boardDirectory = repository + "/board"

    /// The monotonic clock now, in nanoseconds: the clock of GPIO and evdev timestamps.
    static func now() -> Int64 {
        var t = timespec()
        clock_gettime(CLOCK_MONOTONIC, &t)
        return Int64(t.tv_sec) * 1_000_000_000 + Int64(t.tv_nsec)
    }

    /// Sleeps `milliseconds`: how long a finger holds a button, not a wait for a result.
    static func hold(milliseconds: Int) {
        var request = timespec(tv_sec: milliseconds / 1000, tv_nsec: (milliseconds % 1000) * 1_000_000)
        var remaining = timespec()
        while nanosleep(&request, &remaining) == -1 && errno == EINTR { request = remaining }
    }

    /// Polls `items` (a list that only grows) for the first element after the first `after`
    /// that satisfies `matching`, every 10 ms for at most `timeout` seconds; nil when none
    /// came, or as soon as `giveUp` says no more will.
    static func firstNew<T>(_ items: () -> [T], after: Int, timeout: Double, giveUp: () -> Bool = { false },
                            _ matching: (T) -> Bool) -> (index: Int, element: T)? {
        let deadline = now() + Int64(timeout * 1e9)
        var checked = after
        while true {
            let all = items()
            if checked < all.count {
                for index in checked..<all.count where matching(all[index]) { return (index, all[index]) }
                checked = all.count
            }
            if now() > deadline || giveUp() { return nil }
            hold(milliseconds: 10)
        }
    }

    /// Asks for SCHED_FIFO at `priority` for the calling thread (a reader or writer of the
    /// loopback card that must not fall behind when the VM stalls); as root it is granted.
    static func makeRealtime(priority: Int32) {
        var parameter = sched_param(sched_priority: priority)
        _ = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter)
    }

    /// A whole text file, or an error naming it.
    static func read(_ path: String) throws -> String {
        guard let file = fopen(path, "r") else { throw BoxError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = fread(&chunk, 1, chunk.count, file)
            if count == 0 { break }
            bytes += chunk.prefix(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Opens `path` for writing with O_TRUNC: empties tracefs's `trace`.
    static func truncate(_ path: String) throws {
        let fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC)
        guard fd >= 0 else { throw BoxError("cannot truncate \(path): \(String(cString: strerror(errno)))") }
        close(fd)
    }

    /// Writes `text` to a sysfs/configfs/tracefs attribute.
    static func write(_ text: String, to path: String) throws {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { throw BoxError("cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        let written = text.withCString { Glibc.write(fd, $0, strlen($0)) }
        guard written == text.utf8.count else {
            throw BoxError("cannot write \"\(text)\" to \(path): \(String(cString: strerror(errno)))")
        }
    }
}

/// A failed step of a system test, with what and where.
struct BoxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Every system test, one after the other: they share the VM's two CPUs, and timing-bound
/// stimuli (contact bounce, a held button) must not wait behind another test's work.
@Suite(.tags(.system), .serialized, .enabled(if: Box.isRunning, Box.skipReason))
struct SystemTests {}
