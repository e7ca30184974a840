import Testing
@testable import ALSA

@Suite(.tags(.unit)) struct SampleConversionTests {
    @Test(arguments: CaptureTests.pattern.indices)
    func singleSamplesFollowTheSpecification(index: Int) {
        let sample = CaptureTests.pattern[index]
        #expect(SampleConversion.s16(sample.input) == sample.s16)
        #expect(SampleConversion.s32(sample.input) == sample.s32)
    }

    @Test func s16IsMonotonicAndSymmetricAwayFromTheEdges() {
        var previous = Int16.min
        for step in -40_000...40_000 {
            let value = SampleConversion.s16(Float(step) / 32_768)
            #expect(value >= previous)
            previous = value
            if abs(step) < 32_767 { #expect(SampleConversion.s16(-Float(step) / 32_768) == -value) }
        }
    }

    @Test(arguments: PCMSampleFormat.allCases)
    func bufferConversionWritesExactlyCountSamples(format: PCMSampleFormat) {
        let input: [Float] = [0.25, -0.75, 1.25]
        let guardByte: UInt8 = 0xA5
        var output = [UInt8](repeating: guardByte, count: input.count * format.bytesPerSample + 4)
        input.withUnsafeBufferPointer { source in
            output.withUnsafeMutableBytes { destination in
                SampleConversion.convert(source.baseAddress!, count: input.count, to: format,
                                         into: destination.baseAddress!)
            }
        }
        #expect(output.suffix(4).allSatisfy { $0 == guardByte })
        #expect(output.prefix(input.count * format.bytesPerSample).contains { $0 != guardByte })
    }
}
