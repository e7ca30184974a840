import Foundation
import Testing
@testable import ALSA

/// A `type file` PCM stores the exact bytes handed to ALSA: what the writer converts is
/// what a DAC would receive.
@Suite(.tags(.integration)) struct CaptureTests {
    init() { ALSATestEnvironment.prepare() }

    /// One input sample and what each format must carry for it.
    struct Sample: Sendable {
        var input: Float
        var s16: Int16
        var s32: Int32
    }

    /// Specification values: x·2^(bits-1), rounded to nearest with halves away from zero,
    /// clipped; NaN is silence.
    static let pattern: [Sample] = [
        Sample(input: 0, s16: 0, s32: 0),
        Sample(input: 0.5, s16: 16_384, s32: 1_073_741_824),
        Sample(input: -0.5, s16: -16_384, s32: -1_073_741_824),
        Sample(input: 1, s16: 32_767, s32: 2_147_483_647),
        Sample(input: -1, s16: -32_768, s32: -2_147_483_648),
        Sample(input: 1.5, s16: 32_767, s32: 2_147_483_647),
        Sample(input: -2, s16: -32_768, s32: -2_147_483_648),
        Sample(input: 1 / 65_536, s16: 1, s32: 32_768),             // half an S16 step: up
        Sample(input: -1 / 65_536, s16: -1, s32: -32_768),          // half a step: away from zero
        Sample(input: 0.49 / 32_768, s16: 0, s32: 32_113),          // below half: down
        Sample(input: 3.5 / 32_768, s16: 4, s32: 229_376),
        Sample(input: 0x1p-32, s16: 0, s32: 1),                     // half an S32 step
        Sample(input: .infinity, s16: 32_767, s32: 2_147_483_647),
        Sample(input: -.infinity, s16: -32_768, s32: -2_147_483_648),
        Sample(input: .nan, s16: 0, s32: 0),
        Sample(input: 0.25, s16: 8_192, s32: 536_870_912),
    ]

    /// Writes `repeats` copies of the pattern as stereo frames through a writer, drains,
    /// closes the PCM and returns the file's bytes.
    func capture(format: PCMSampleFormat, repeats: Int,
                 chunkFrames: Int? = nil) throws -> (Data, BlockingPCMWriterFigures) {
        let path = ALSATestEnvironment.scratchFile("capture-\(format.alsaName)")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let figures: BlockingPCMWriterFigures
        do {
            let device = try PCMDevice(name: ALSATestEnvironment.filePCM(path))
            try device.configure(PCMConfiguration(format: format, channels: 2, rate: 48_000,
                                                  periodFrames: 128, periodCount: 3))
            let writer = try BlockingPCMWriter(device: device, chunkFrames: chunkFrames)
            let samples = (0..<repeats).flatMap { _ in Self.pattern.map(\.input) }
            try writer.write(samples)
            try writer.drain()
            figures = BlockingPCMWriterFigures(framesWritten: writer.framesWritten, xruns: writer.xrunCount)
        }
        return (try Data(contentsOf: URL(fileURLWithPath: path)), figures)
    }

    struct BlockingPCMWriterFigures {
        var framesWritten: Int
        var xruns: Int
    }

    @Test(arguments: [nil, 7, 128])
    func s16CaptureMatchesTheSpecificationExactly(chunkFrames: Int?) throws {
        // 50 × 16 samples = 400 stereo frames: more than a buffer, not a whole number of periods.
        let repeats = 50
        let (data, figures) = try capture(format: .s16LE, repeats: repeats, chunkFrames: chunkFrames)
        #expect(data.count == repeats * Self.pattern.count * 2)
        #expect(figures.framesWritten == repeats * Self.pattern.count / 2)
        #expect(figures.xruns == 0)
        let captured = data.withUnsafeBytes { bytes in
            (0..<data.count / 2).map {
                Int16(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 2, as: Int16.self))
            }
        }
        let expected = (0..<repeats).flatMap { _ in Self.pattern.map(\.s16) }
        #expect(captured == expected)
    }

    @Test func s32CaptureMatchesTheSpecificationExactly() throws {
        let repeats = 30
        let (data, _) = try capture(format: .s32LE, repeats: repeats)
        #expect(data.count == repeats * Self.pattern.count * 4)
        let captured = data.withUnsafeBytes { bytes in
            (0..<data.count / 4).map {
                Int32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: Int32.self))
            }
        }
        #expect(captured == (0..<repeats).flatMap { _ in Self.pattern.map(\.s32) })
    }

    @Test func floatCapturePassesSamplesThroughUnchanged() throws {
        let repeats = 30
        let (data, _) = try capture(format: .floatLE, repeats: repeats)
        #expect(data.count == repeats * Self.pattern.count * 4)
        let captured = data.withUnsafeBytes { bytes in
            (0..<data.count / 4).map {
                UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: $0 * 4, as: UInt32.self))
            }
        }
        #expect(captured == (0..<repeats).flatMap { _ in Self.pattern.map(\.input.bitPattern) })
    }

    @Test func rawWritesLandInTheFileByteForByte() throws {
        let path = ALSATestEnvironment.scratchFile("raw")
        defer { try? FileManager.default.removeItem(atPath: path) }
        let frames = 300
        let samples = (0..<frames * 2).map { Int16(truncatingIfNeeded: $0 &* 211 &- 30_000) }
        do {
            let device = try PCMDevice(name: ALSATestEnvironment.filePCM(path))
            try device.configure(PCMConfiguration(format: .s16LE, channels: 2))
            var done = 0
            try samples.withUnsafeBytes { bytes in
                while done < frames {
                    done += try device.writeInterleaved(bytes.baseAddress! + done * 4, frames: min(100, frames - done))
                }
            }
            try device.drain()
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(data == samples.withUnsafeBytes { Data($0) })
    }

    @Test func writerThrowsWhatItCannotRecoverFrom() throws {
        let device = try PCMDevice(name: "null")
        try device.configure(PCMConfiguration())
        let writer = try BlockingPCMWriter(device: device)
        try device.drop()   // SETUP state: writes fail with EBADFD, which recovery cannot fix
        #expect {
            try writer.write([Float](repeating: 0.1, count: 64))
        } throws: { error in
            guard let error = error as? ALSAError else { return false }
            return error.function == "snd_pcm_writei" && error.code == EBADFD
        }
        #expect(writer.framesWritten == 0)
        #expect(writer.xrunCount == 0)
    }

    @Test func writerNeedsAConfiguredDevice() throws {
        let device = try PCMDevice(name: "null")
        #expect {
            _ = try BlockingPCMWriter(device: device)
        } throws: { error in
            (error as? ALSAError)?.code == EBADFD
        }
    }
}
