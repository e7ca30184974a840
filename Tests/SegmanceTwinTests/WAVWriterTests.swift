import Testing
#if canImport(Glibc)
import Glibc
#endif
@testable import SegmanceTwin

@Suite(.tags(.integration)) struct WAVWriterTests {
    @Test(arguments: [(0, 0), (1.0 / 32768, 1), (-1, -32768), (1, 32767), (1.5, 32767),
                      (-2, -32768), (0.5, 16384), (-12345.0 / 32768, -12345)] as [(Float, Int16)])
    func convertsLikeAnS16Sink(x: Float, s: Int16) {
        #expect(WAVWriter.s16(x) == s)
    }

    @Test func everyInt16SurvivesTheRoundTrip() {
        for v in Int32(Int16.min)...Int32(Int16.max) {
            #expect(WAVWriter.s16(Float(v) / 32768) == Int16(v))
        }
    }

    @Test func writesACanonicalHeaderAndTheSamples() throws {
        let path = "/tmp/segmance-wavwriter-\(getpid()).wav"
        defer { unlink(path) }
        let writer = try WAVWriter(path: path, sampleRate: 48_000)
        let samples: [Float] = [0, 0.5, -0.5, 1]
        samples.withUnsafeBufferPointer { writer.write($0.baseAddress!, frames: 2) }
        try writer.finish()
        let f = fopen(path, "rb")!
        defer { fclose(f) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = fread(&bytes, 1, 64, f)
        #expect(n == 44 + 8)
        #expect(Array(bytes[0..<4]) == Array("RIFF".utf8))
        #expect(bytes[4] == 44) // 36 + 8 data bytes
        #expect(Array(bytes[36..<40]) == Array("data".utf8))
        #expect(bytes[40] == 8)
        let pcm = (0..<4).map { Int16(bitPattern: UInt16(bytes[44 + 2 * $0]) | UInt16(bytes[45 + 2 * $0]) << 8) }
        #expect(pcm == [0, 16384, -16384, 32767])
    }
}
