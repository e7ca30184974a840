// libFuzzer target: bytes as an audio file through SndFileDecoder (FileSniff, libsndfile,
// the Int16 copy or the float path through OutputConverter and soxr), as an import reads
// it. The seeds (Tests/Fuzz/Corpus/FuzzSndFile, made by make-seeds.sh) are short files of
// every format libsndfile reads for the box, so the mutations start from real headers.
import FuzzSupport
@testable import AudioDecoding

/// Counts what a decode writes, and checks it is whole stereo frames.
final class CountingSink: PCMSink {
    private(set) var frames: Int64 = 0

    func write(_ samples: UnsafeBufferPointer<Int16>) throws {
        precondition(samples.count % 2 == 0, "\(samples.count) samples: not whole stereo frames")
        frames += Int64(samples.count / 2)
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSndFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = UnsafeBufferPointer(start: size == 0 ? nil : data, count: size)
    let path = FuzzFolder.write(bytes, to: "input")
    defer { FuzzFolder.empty() }
    let sink = CountingSink()
    do {
        let frames = try SndFileDecoder(outputRate: 48_000).decode(path, into: sink)
        precondition(frames > 0 && frames == sink.frames, "decoded \(frames) frames, the sink got \(sink.frames)")
    } catch let error as AudioDecodeError {
        // A refusal names the file and says why.
        precondition(error.path == path, "an error about \(error.path), not \(path)")
        precondition(!error.description.isEmpty, "an error without words")
    } catch {
        preconditionFailure("not an AudioDecodeError: \(error)")
    }
    return 0
}
