import Glibc
import Testing
@testable import SegmanceDaemon

/// The notification protocol against a real datagram socket, as systemd binds it.
@Suite(.tags(.integration)) struct SystemdNotifierTests {
    /// A bound AF_UNIX datagram socket standing in for systemd's notify socket.
    final class ManagerSocket {
        let fd: Int32
        let name: String

        init(abstract: Bool) {
            fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
            name = abstract ? "@segmance-notify-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
                : "/tmp/segmance-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            var bytes = Array(name.utf8)
            if abstract { bytes[0] = 0 }
            withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: bytes) }
            let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count)
            let bound = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
            }
            precondition(bound == 0, "bind \(name): \(String(cString: strerror(errno)))")
        }

        deinit {
            close(fd)
            if !name.hasPrefix("@") { unlink(name) }
        }

        func receive() -> String {
            var buffer = [UInt8](repeating: 0, count: 512)
            var ready = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 5000) == 1 else { return "<nothing within 5 s>" }
            let n = recv(fd, &buffer, buffer.count, 0)
            return String(decoding: buffer.prefix(max(0, n)), as: UTF8.self)
        }
    }

    @Test(arguments: [false, true])
    func notificationsReachTheManagersSocket(abstract: Bool) {
        let manager = ManagerSocket(abstract: abstract)
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": manager.name])
        #expect(notifier.notify("READY=1\nSTATUS=Ready"))
        #expect(manager.receive() == "READY=1\nSTATUS=Ready")
        #expect(notifier.notify("WATCHDOG=1"))
        #expect(manager.receive() == "WATCHDOG=1")
    }

    @Test func withoutSystemdNothingIsSent() {
        let notifier = SystemdNotifier(environment: [:])
        #expect(notifier.socketPath == nil)
        #expect(!notifier.notify("READY=1"))
        #expect(notifier.watchdogInterval == nil)
    }

    @Test func theWatchdogIntervalIsReadOnlyWhenItIsMeantForThisProcess() {
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000"]).watchdogInterval == 2_000_000_000)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "\(getpid())"])
            .watchdogInterval == 2_000_000_000)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "2000000", "WATCHDOG_PID": "1"]).watchdogInterval == nil)
        #expect(SystemdNotifier(environment: ["WATCHDOG_USEC": "0"]).watchdogInterval == nil)
    }

    @Test func aSocketThatIsGoneIsNotAnError() {
        let notifier = SystemdNotifier(environment: ["NOTIFY_SOCKET": "/tmp/segmance-no-such-socket-\(getpid())"])
        #expect(!notifier.notify("READY=1"))
    }
}
