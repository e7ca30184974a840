import AudioDecoding
import Testing

/// Audio a decoder wrote, kept for a test to look at: interleaved stereo Int16.
struct DecodedSamples {
    var samples: [Int16]
    var sampleRate: Int
    var frames: Int64 { Int64(samples.count / 2) }
    var seconds: Double { Double(frames) / Double(sampleRate) }

    subscript(frame: Int64, channel: Int) -> Int16 { samples[Int(frame) * 2 + channel] }
}

/// Keeps every chunk a decoder writes.
final class CollectingSink: PCMSink {
    private(set) var samples: [Int16] = []

    func begin(expectedFrames: Int) { samples.reserveCapacity(expectedFrames * 2) }
    func write(_ chunk: UnsafeBufferPointer<Int16>) throws { samples += chunk }
}

extension AudioDecoder {
    /// Decodes `path` the way an import does (`decode(_:into:)`), into memory for the test.
    func decodeAll(_ path: String) throws(AudioDecodeError) -> DecodedSamples {
        let sink = CollectingSink()
        do {
            _ = try decode(path, into: sink)
        } catch let error as AudioDecodeError {
            throw error
        } catch {
            Issue.record("the collecting sink threw: \(error)")
            throw AudioDecodeError(path: path, reason: .unreadable("\(error)"))
        }
        return DecodedSamples(samples: sink.samples, sampleRate: outputRate)
    }
}
