import Glibc
import Testing
@testable import GPIOD

/// The edge source reads the kernel's event records (libgpiod 1: `gpioevent_data` through
/// `gpiod_line_event_read_fd_multiple`; libgpiod 2: `gpio_v2_line_event`) from line fds; pipes
/// stand in for the fds a chip would give.
@Suite("Edge source over line event fds", .tags(.integration))
struct GPIOEdgeSourceTests {
    enum Control: Hashable, Sendable { case play, next }

    private func source(_ pipes: [(Pipe, UInt32, Control)]) throws -> GPIOEdgeSource<Control> {
        for (pipe, _, _) in pipes {
            try GPIOEventReader.makeNonBlocking(pipe.read, subject: "test pipe")
        }
        return GPIOEdgeSource(watching: pipes.map { .init(fd: $0.0.read, offset: $0.1, id: $0.2) }, owners: [])
    }

    @Test func mergesLinesInKernelTimestampOrder() throws {
        let play = Pipe(), next = Pipe()
        defer { play.close(); next.close() }
        let edges = try source([(play, 17, .play), (next, 27, .next)])

        play.send(gpioEventData(timestamp: 1_000, rising: true) + gpioEventData(timestamp: 5_000_000_007, rising: false))
        next.send(gpioEventData(timestamp: 2_000, rising: false) + gpioEventData(timestamp: 3_000, rising: true))

        let events = try edges.wait(timeoutNanoseconds: 0)
        #expect(events == [
            GPIOLineEvent(id: .play, offset: 17, rising: true, timestampNanoseconds: 1_000),
            GPIOLineEvent(id: .next, offset: 27, rising: false, timestampNanoseconds: 2_000),
            GPIOLineEvent(id: .next, offset: 27, rising: true, timestampNanoseconds: 3_000),
            GPIOLineEvent(id: .play, offset: 17, rising: false, timestampNanoseconds: 5_000_000_007),
        ])
        // Everything was drained: nothing is left for the next look.
        #expect(try edges.wait(timeoutNanoseconds: 0).isEmpty)
    }

    @Test func timeoutWithNothingPendingGivesNoEvents() throws {
        let play = Pipe()
        defer { play.close() }
        let edges = try source([(play, 4, .play)])
        #expect(try edges.wait(timeoutNanoseconds: 1_000_000).isEmpty)
        #expect(try edges.readPending().isEmpty)
    }

    @Test func drainsMoreThanOneLibgpiodBatch() throws {
        let play = Pipe()
        defer { play.close() }
        let edges = try source([(play, 4, .play)])
        let count = GPIOEventReader.batch * 2 + 3
        for index in 0..<count {
            play.send(gpioEventData(timestamp: UInt64(index * 10), rising: index % 2 == 0))
        }
        let events = try edges.readPending()
        #expect(events.map(\.timestampNanoseconds) == (0..<count).map { Int64($0 * 10) })
        #expect(events.map(\.rising) == (0..<count).map { $0 % 2 == 0 })
    }

    @Test func equalTimestampsKeepEachLinesOrder() throws {
        let play = Pipe()
        defer { play.close() }
        let edges = try source([(play, 4, .play)])
        play.send(gpioEventData(timestamp: 9, rising: true) + gpioEventData(timestamp: 9, rising: false))
        #expect(try edges.readPending().map(\.rising) == [true, false])
    }

    @Test func aTruncatedRecordIsAnError() throws {
        let play = Pipe()
        defer { play.close() }
        let edges = try source([(play, 4, .play)])
        play.send(Array(gpioEventData(timestamp: 1, rising: true).prefix(6)))
        var caught: GPIOError?
        do { _ = try edges.wait(timeoutNanoseconds: 0) } catch let thrown as GPIOError { caught = thrown }
        let error = try #require(caught)
        #expect(error.function == "gpiod_line_event_read")
        #expect(error.errno == EIO)
        #expect(error.subject.contains("line 4"))
    }

    @Test(arguments: [
        (Int64?.none, Int32(-1)),
        (0, 0),
        (1, 1),
        (1_000_000, 1),
        (1_000_001, 2),
        (-5, 0),
        (Int64.max, Int32.max),
    ])
    func pollTimeoutIsNeverShorterThanAsked(nanoseconds: Int64?, milliseconds: Int32) {
        #expect(GPIOEdgeSource<Control>.pollMilliseconds(nanoseconds) == milliseconds)
    }
}
