import CSoxr

/// A soxr call failed: which function and soxr's message.
public struct ResamplerError: Error, Equatable, Sendable, CustomStringConvertible {
    public var function: String
    public var message: String
    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }
    public var description: String { "\(function): \(message)" }
}

/// A streaming sample-rate converter for interleaved Float audio (soxr, HQ quality).
/// Owns its `soxr_t`, deleted in `deinit`. Feed it with `process(_:)`, then call
/// `flush()` once to drain the filter's tail. Not thread-safe.
public final class Resampler {
    public let inputRate: Double
    public let outputRate: Double
    public let channels: Int
    private let handle: soxr_t
    private var output: [Float] = []
    private var flushed = false

    /// Creates a converter from `inputRate` to `outputRate` for `channels` channels.
    public init(inputRate: Double, outputRate: Double, channels: Int) throws(ResamplerError) {
        guard inputRate > 0, outputRate > 0, channels > 0 else {
            throw ResamplerError(function: "soxr_create",
                                 message: "invalid rates \(inputRate) -> \(outputRate) or channels \(channels)")
        }
        var io = soxr_io_spec(SOXR_FLOAT32_I, SOXR_FLOAT32_I)
        var quality = soxr_quality_spec(UInt(SOXR_HQ), 0)
        var error: soxr_error_t?
        let created = soxr_create(inputRate, outputRate, UInt32(channels), &error, &io, &quality, nil)
        if let error {
            if let created { soxr_delete(created) }
            throw ResamplerError(function: "soxr_create", message: String(cString: error))
        }
        guard let created else {
            throw ResamplerError(function: "soxr_create", message: "no resampler returned")
        }
        self.handle = created
        self.inputRate = inputRate
        self.outputRate = outputRate
        self.channels = channels
    }

    deinit { soxr_delete(handle) }

    /// Converts a block of interleaved input; returns the output produced so far
    /// (soxr buffers some input internally, so output lags input until `flush()`).
    public func process(_ input: [Float]) throws(ResamplerError) -> [Float] {
        guard !flushed else {
            throw ResamplerError(function: "soxr_process", message: "resampler already flushed")
        }
        return try input.withUnsafeBufferPointer { b in
            Result { () throws(ResamplerError) in try run(b, last: false) }
        }.get()
    }

    /// Ends the input and returns the remaining output.
    public func flush() throws(ResamplerError) -> [Float] {
        guard !flushed else { return [] }
        flushed = true
        return try run(UnsafeBufferPointer(start: nil, count: 0), last: true)
    }

    /// Converts a whole signal in one go (process + flush).
    public func convert(_ input: [Float]) throws(ResamplerError) -> [Float] {
        var out = try process(input)
        out += try flush()
        return out
    }

    private func run(_ input: UnsafeBufferPointer<Float>, last: Bool) throws(ResamplerError) -> [Float] {
        let inFrames = input.count / channels
        let capacity = Int((Double(inFrames) * outputRate / inputRate).rounded(.up)) + 4096
        var chunk = [Float](repeating: 0, count: capacity * channels)
        var result: [Float] = []
        var offset = 0
        while true {
            var consumed = 0
            var produced = 0
            let remaining = inFrames - offset
            let error: soxr_error_t? = chunk.withUnsafeMutableBufferPointer { out in
                // A nil input tells soxr the signal has ended: it drains its filter.
                let inBase = last ? nil : input.baseAddress.map { UnsafeRawPointer($0 + offset * channels) }
                return soxr_process(handle, inBase, remaining, &consumed,
                                    UnsafeMutableRawPointer(out.baseAddress), capacity, &produced)
            }
            if let error {
                throw ResamplerError(function: "soxr_process", message: String(cString: error))
            }
            offset += consumed
            result.append(contentsOf: chunk[0..<(produced * channels)])
            if last ? produced == 0 : (offset >= inFrames || (consumed == 0 && produced == 0)) {
                return result
            }
        }
    }
}
