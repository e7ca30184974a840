import LinuxSystem
import ALSA
#if canImport(Glibc)
import Glibc
#endif

/// Writes 16-bit stereo PCM WAV, converting Float [-1, 1] with the very function the ALSA
/// writer uses for S16_LE, so the file holds exactly what the device would be handed. The header carries no dates or tool names, so the
/// same samples always give the same bytes.
public final class WAVWriter {
    public let path: String
    public let sampleRate: Int
    public let channels = 2
    private let file: UnsafeMutablePointer<FILE>
    private var scratch: [Int16] = []
    public private(set) var frames: Int64 = 0

    public init(path: String, sampleRate: Int) throws(SimError) {
        guard let file = fopen(path, "wb") else {
            throw SimError("cannot write \(path): \(SystemError.text(errno))")
        }
        self.path = path
        self.sampleRate = sampleRate
        self.file = file
        writeHeader()
    }

    deinit { fclose(file) }

    /// Converts a sample as the ALSA S16_LE path does.
    @inline(__always)
    public static func s16(_ x: Float) -> Int16 { SampleConversion.s16(x) }

    /// Appends interleaved stereo frames.
    public func write(_ samples: UnsafePointer<Float>, frames count: Int) {
        let n = count * channels
        if scratch.count < n { scratch = [Int16](repeating: 0, count: n) }
        for i in 0..<n { scratch[i] = Self.s16(samples[i]).littleEndian }
        _ = scratch.withUnsafeBytes { fwrite($0.baseAddress, 2, n, file) }
        frames += Int64(count)
    }

    /// Fixes the sizes in the header and flushes.
    public func finish() throws(SimError) {
        fseek(file, 0, SEEK_SET)
        writeHeader()
        guard fflush(file) == 0 else { throw SimError("cannot write \(path): \(SystemError.text(errno))") }
    }

    private func writeHeader() {
        let dataBytes = UInt32(truncatingIfNeeded: frames * Int64(channels) * 2)
        var header: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { header += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { header += $0 } }
        header += Array("RIFF".utf8); u32(36 + dataBytes); header += Array("WAVE".utf8)
        header += Array("fmt ".utf8); u32(16); u16(1); u16(UInt16(channels)); u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * channels * 2)); u16(UInt16(channels * 2)); u16(16)
        header += Array("data".utf8); u32(dataBytes)
        _ = header.withUnsafeBytes { fwrite($0.baseAddress, 1, header.count, file) }
    }
}

/// An error of the simulator's own (files, scenarios), with a message for a person.
public struct SimError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
