import Glibc
import SegmanceTestSupport
import Testing
@testable import LinuxInput

@Suite("EvdevDevice reading a real file descriptor", .tags(.integration))
struct EvdevDeviceTests {
    let events = [
        InputEvent(seconds: 100, microseconds: 1, type: InputEvent.key, code: 109, value: 1),
        InputEvent(seconds: 100, microseconds: 1, type: InputEvent.synchronization, code: 0, value: 0),
        InputEvent(seconds: 100, microseconds: 90_000, type: InputEvent.key, code: 109, value: 0),
        InputEvent(seconds: 100, microseconds: 90_000, type: InputEvent.synchronization, code: 0, value: 0),
    ]

    @Test func readsEveryEventOfAFile() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.write("event0", events.flatMap { $0.encoded() })
        let device = try EvdevDevice(path: path)
        #expect(device.name == nil) // a regular file answers EVIOCGNAME with ENOTTY
        #expect(!device.monotonicTimestamps)
        #expect(try device.readEvents() == events)
        #expect(try device.readEvents().isEmpty)
        // Only an evdev node can be grabbed; the error says which call failed and why.
        #expect(throws: InputError.system(function: "ioctl(EVIOCGRAB)", path: path, errno: ENOTTY)) {
            try device.grab()
        }
    }

    @Test func reassemblesRecordsSplitAcrossReadsOfAFIFO() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let path = dir.file("event1")
        #expect(mkfifo(path, 0o600) == 0)
        let device = try EvdevDevice(path: path)
        let writer = open(path, O_WRONLY | O_NONBLOCK)
        #expect(writer >= 0)
        defer { close(writer) }
        let bytes = events.flatMap { $0.encoded() }
        let split = InputEvent.Layout.native.size + 5

        #expect(try device.readEvents().isEmpty) // nothing written yet: EAGAIN, not a block
        send(writer, Array(bytes[..<split]))
        #expect(try device.readEvents() == [events[0]])
        send(writer, Array(bytes[split...]))
        #expect(try device.readEvents() == Array(events[1...]))
        #expect(try device.readEvents().isEmpty)
    }

    @Test func aMissingNodeNamesTheCallAndTheReason() throws {
        var caught: InputError?
        do {
            _ = try EvdevDevice(path: "/dev/input/event-segmance-missing")
        } catch let thrown as InputError { caught = thrown }
        let error = try #require(caught)
        #expect(error == .system(function: "open", path: "/dev/input/event-segmance-missing", errno: ENOENT))
        #expect(error.description
            == "open failed for /dev/input/event-segmance-missing: No such file or directory (errno 2)")
        #expect(!error.isDisconnect)
        #expect(InputError.system(function: "read", path: "x", errno: ENODEV).isDisconnect)
    }

    @Test func aFileThatIsNoEvdevNodeHasNoName() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        #expect(EvdevDevice.name(at: dir.write("event2", text: "Keyboard")) == nil)
        #expect(EvdevDevice.name(at: dir.file("absent")) == nil)
    }

    private func send(_ fd: Int32, _ bytes: [UInt8]) {
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        #expect(written == bytes.count)
    }
}
