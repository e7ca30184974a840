import ALSA
import Testing
@testable import SegmanceEngine
#if canImport(Glibc)
import Glibc
#endif

/// The deep buffer's wake threshold (avail_min, three quarters of the buffer) reaches the
/// paced test device through `file`, `plug` and alsa-lib's jack plugin, whose own thread
/// signals room through a socket: a writer polling the PCM is woken only when that much room
/// is free, about 8 times a second at 1024 × 8 frames, not at every JACK cycle (375 times a
/// second at 128 frames). The render thread's CPU while playing (engine-bench's budget
/// against aplay) rests on it.
// jackd2 is a test dependency (deploy/install-deps.sh); without it there is no paced PCM.
@Suite(.tags(.integration), .serialized, .enabled(if: JackServer.isInstalled, "jackd2 is not installed: no paced PCM"))
struct AvailMinWakeTests {
    init() { EngineTestEnvironment.prepare() }

    @Test func aJackPCMWakesItsPollerOnlyWithAvailMinOfRoom() throws {
        let jack = try JackServer()
        defer { jack.stop() }
        let pcm = try EngineTestEnvironment.jackTap(EngineTestEnvironment.scratchFile("avail-min"))
        let configuration = EngineConfiguration(periodFrames: 1024, periods: 8, realtimePriority: nil,
                                                lockMemory: false, rewind: RewindTests.rewind)
        let granted = try pcm.configure(configuration.pcmRequest)
        let availMin = try #require(granted.availMin)
        let buffer = try #require(granted.bufferFrames)
        #expect(availMin == buffer * 3 / 4)
        try pcm.setNonBlocking(true)
        let frameBytes = granted.channels * granted.format.bytesPerSample
        let silence = [UInt8](repeating: 0, count: buffer * frameBytes)

        // Fill the buffer (the start threshold: it starts), then refill at every wake with room.
        var written = 0
        while written < buffer {
            let n = silence.withUnsafeBytes { pcm.rawWriteInterleaved($0.baseAddress!, frames: buffer - written) }
            try #require(n > 0, "write: \(n)")
            written += n
        }
        var fds = try pcm.pollDescriptors()
        var roomAtWakes: [Int] = []
        var polls = 0
        while roomAtWakes.count < 6 && polls < 200 {
            polls += 1
            for i in fds.indices { fds[i].revents = 0 }
            let ready = fds.withUnsafeMutableBufferPointer { poll($0.baseAddress, nfds_t($0.count), 2_000) }
            try #require(ready > 0, "the device never woke the poller")
            guard try pcm.pollEvents(&fds) & Int16(POLLOUT) != 0 else { continue }
            let room = try pcm.avail()
            roomAtWakes.append(room)
            let n = silence.withUnsafeBytes { pcm.rawWriteInterleaved($0.baseAddress!, frames: room) }
            try #require(n == room, "refill: \(n) of \(room)")
        }
        #expect(roomAtWakes.count == 6)
        #expect(roomAtWakes.allSatisfy { $0 >= availMin }, "room at each wake: \(roomAtWakes), avail_min \(availMin)")
    }
}
