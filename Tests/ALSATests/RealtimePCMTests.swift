import Testing
@testable import ALSA
#if canImport(Glibc)
import Glibc
#endif

/// The render thread's calls (`RealtimePCM`) on the `null` PCM: each answers alsa-lib's own
/// result, a count or a negative errno, and throws nothing.
@Suite(.tags(.integration)) struct RealtimePCMTests {
    init() { ALSATestEnvironment.prepare() }

    @Test func theCallsAnswerAlsaLibsResults() throws {
        let device = try PCMDevice(name: "null")
        let granted = try device.configure(PCMDeviceTests.standard)
        let pcm = device.realtime
        let buffer = [Int16](repeating: 0, count: granted.requestedBufferFrames * granted.channels)
        #expect(pcm.state == .prepared)
        #expect(pcm.wait(timeoutMilliseconds: 0) >= 0)
        let written = buffer.withUnsafeBytes { pcm.writei($0.baseAddress!, frames: granted.periodFrames) }
        #expect(written == granted.periodFrames)
        #expect(pcm.start() == 0)
        #expect(pcm.state == .running)
        #expect(pcm.delay() != nil)
        #expect(pcm.avail() >= 0)
        #expect(pcm.availUpdate() >= 0)
        #expect(pcm.rewindable() >= 0)
        #expect(pcm.rewind(frames: 0) == 0)
        #expect(pcm.forward(frames: 0) == 0)
        // An underrun's code is mended: the PCM is prepared again.
        #expect(pcm.recover(-EPIPE) == 0)
        #expect(pcm.state == .prepared)
        // A code recovery cannot mend comes back as it is.
        #expect(pcm.recover(-EINVAL) == -EINVAL)
    }

    /// A stopped PCM refuses a write with a negative errno, not a thrown error.
    @Test func aRefusedWriteIsANegativeErrno() throws {
        let device = try PCMDevice(name: "null")
        let granted = try device.configure(PCMDeviceTests.standard)
        try device.drop()
        let pcm = device.realtime
        #expect(pcm.state == .setup)
        let buffer = [Int16](repeating: 0, count: granted.periodFrames * granted.channels)
        let written = buffer.withUnsafeBytes { pcm.writei($0.baseAddress!, frames: granted.periodFrames) }
        #expect(written == -Int(EBADFD))
    }
}
