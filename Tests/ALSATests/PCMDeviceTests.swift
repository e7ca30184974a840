import Foundation
import Testing
@testable import ALSA

@Suite(.tags(.integration)) struct PCMDeviceTests {
    init() { ALSATestEnvironment.prepare() }

    static let standard = PCMConfiguration(format: .s16LE, channels: 2, rate: 48_000,
                                           periodFrames: 128, periodCount: 3)

    @Test func nullGrantsTheStandardConfiguration() throws {
        let device = try PCMDevice(name: "null")
        #expect(device.state == .open)
        let granted = try device.configure(Self.standard)
        #expect(granted.format == .s16LE)
        #expect(granted.channels == 2)
        #expect(granted.rate == 48_000)
        #expect(granted.periodFrames == 128)
        #expect(granted.periodCount == 3)
        #expect(granted.bufferFrames == 384)
        #expect(granted.startThreshold == 384)
        #expect(granted.availMin == 128)
        #expect(device.configuration == granted)
        #expect(device.state == .prepared)
    }

    @Test func startsWhenTheStartThresholdIsReached() throws {
        let device = try PCMDevice(name: "null")
        let granted = try device.configure(Self.standard)
        let buffer = [Int16](repeating: 0, count: granted.requestedBufferFrames * granted.channels)
        // `null` forwards its hardware pointer at once, so only what one call queues counts
        // towards the threshold there: a period stays below it, a whole buffer reaches it.
        let period = try buffer.withUnsafeBytes {
            try device.writeInterleaved($0.baseAddress!, frames: granted.periodFrames)
        }
        #expect(period == granted.periodFrames)
        #expect(device.state == .prepared)
        let whole = try buffer.withUnsafeBytes {
            try device.writeInterleaved($0.baseAddress!, frames: granted.requestedBufferFrames)
        }
        #expect(whole == granted.requestedBufferFrames)
        #expect(device.state == .running)
        let delay = try device.delay()
        #expect((0...granted.requestedBufferFrames).contains(delay))
        let avail = try device.avail()
        #expect((0...granted.requestedBufferFrames).contains(avail))
    }

    @Test func startThresholdAndAvailMinCanBeSet() throws {
        let device = try PCMDevice(name: "null")
        var request = Self.standard
        request.startThreshold = 128
        request.availMin = 256
        let granted = try device.configure(request)
        #expect(granted.startThreshold == 128)
        #expect(granted.availMin == 256)
        let period = [Int16](repeating: 0, count: 128 * 2)
        _ = try period.withUnsafeBytes { try device.writeInterleaved($0.baseAddress!, frames: 128) }
        #expect(device.state == .running)
    }

    @Test func availMinBelowAPeriodIsRaisedToAPeriodAndReportedSo() throws {
        // alsa-lib's snd_pcm_sw_params raises avail_min to the period size.
        let device = try PCMDevice(name: "null")
        var request = Self.standard
        request.availMin = 64
        #expect(try device.configure(request).availMin == 128)
    }

    @Test func periodAndBufferSizesAreTheNearestTheDeviceCanDo() throws {
        let device = try PCMDevice(name: "null")
        let granted = try device.configure(PCMConfiguration(periodFrames: 0, periodCount: 2))
        #expect(granted.periodFrames == 1)
        #expect(granted.bufferFrames == 2)
    }

    @Test(arguments: PCMSampleFormat.allCases)
    func bufferSizeInFramesWinsOverPeriodCount(format: PCMSampleFormat) throws {
        let device = try PCMDevice(name: "null")
        let granted = try device.configure(PCMConfiguration(format: format, channels: 1, rate: 44_100,
                                                            periodFrames: 256, periodCount: 3, bufferFrames: 1024))
        #expect(granted.format == format)
        #expect(granted.channels == 1)
        #expect(granted.rate == 44_100)
        #expect(granted.bufferFrames == 1024)
        #expect(granted.periodCount == 4)
        #expect(granted.startThreshold == 1024)
        #expect(granted.bytesPerFrame == format.bytesPerSample)
    }

    @Test func aRunningDeviceCanBeReconfigured() throws {
        let device = try PCMDevice(name: "null")
        try device.configure(Self.standard)
        try device.start()
        #expect(device.state == .running)
        let granted = try device.configure(PCMConfiguration(format: .s32LE, channels: 1, rate: 44_100))
        #expect(granted.format == .s32LE && granted.channels == 1 && granted.rate == 44_100)
        #expect(device.state == .prepared)
    }

    @Test func nonBlockingNullWritesAWholeBuffer() throws {
        let device = try PCMDevice(name: "null", nonBlocking: true)
        let granted = try device.configure(Self.standard)
        let buffer = [Int16](repeating: 0, count: granted.requestedBufferFrames * granted.channels)
        let written = try buffer.withUnsafeBytes {
            try device.writeInterleaved($0.baseAddress!, frames: granted.requestedBufferFrames)
        }
        #expect(written == granted.requestedBufferFrames)
        try device.setNonBlocking(false)
    }

    @Test func unknownPCMNameFailsWithALSAsText() {
        let name = "segtest_no_such_pcm"
        #expect {
            _ = try PCMDevice(name: name)
        } throws: { error in
            guard let error = error as? ALSAError else { return false }
            return error.function == "snd_pcm_open" && error.pcm == name && error.code == ENOENT
                && error.description.hasPrefix("snd_pcm_open(\(name)): No such file or directory")
        }
    }

    @Test(arguments: [EPIPE, ESTRPIPE])
    func recoversFromXrunAndSuspendOnAPreparedPCM(code: Int32) throws {
        let device = try PCMDevice(name: "null")
        try device.configure(Self.standard)
        try device.recover(-code)
        #expect(device.state == .prepared)
        let error = ALSAError(function: "snd_pcm_writei", pcm: device.name, result: -code)
        #expect(error.isXrun == (code == EPIPE))
        #expect(error.isSuspended == (code == ESTRPIPE))
        try device.recover(error)
        #expect(device.state == .prepared)
    }

    @Test func recoverHandsBackOtherErrors() throws {
        let device = try PCMDevice(name: "null")
        try device.configure(Self.standard)
        #expect(device.rawRecover(-EIO) == -EIO)
        #expect {
            try device.recover(-EIO)
        } throws: { error in
            (error as? ALSAError).map { $0.function == "snd_pcm_recover" && $0.code == EIO } ?? false
        }
    }

    @Test func dropAndPrepareMoveTheState() throws {
        let device = try PCMDevice(name: "null")
        try device.configure(Self.standard)
        try device.start()
        #expect(device.state == .running)
        try device.drop()
        #expect(device.state == .setup)
        try device.prepare()
        #expect(device.state == .prepared)
    }

    @Test func pollDescriptorsReportRoomToWrite() throws {
        let device = try PCMDevice(name: "null")
        try device.configure(Self.standard)
        var descriptors = try device.pollDescriptors()
        #expect(!descriptors.isEmpty)
        #expect(descriptors.allSatisfy { $0.fd >= 0 })
        let ready = poll(&descriptors, nfds_t(descriptors.count), 0)
        #expect(ready >= 0)
        let events = try device.pollEvents(&descriptors)
        #expect(events & Int16(POLLOUT) != 0)
        #expect(try device.wait(timeoutMilliseconds: 0))
    }
}
