import AudioDecoding
import FFmpegHelper

/// Decodes any audio a stick holds: reads the file's first bytes and hands it to the
/// decoder for its content, whatever its name says — `SndFileDecoder` (libsndfile) for
/// WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF, AU, W64 and CAF, `FFmpegDecoder` (FFmpeg's
/// libraries) for MP4/M4A/MOV (AAC, ALAC, a video's sound), Matroska/WebM, WMA and raw AAC.
public struct SniffingDecoder: AudioDecoder {
    public var outputRate: Int

    public init(outputRate: Int = 48000) {
        self.outputRate = outputRate
    }

    public func decode(_ path: String, into sink: some PCMSink) throws -> Int64 {
        let sniff = try FileSniff.inspect(path)
        if case .media = sniff {
            return try FFmpegDecoder(outputRate: outputRate).decode(path, sniff: sniff, into: sink)
        }
        return try SndFileDecoder(outputRate: outputRate).decode(path, sniff: sniff, into: sink)
    }
}
