/// Decodes an audio file into the output format: interleaved stereo Int16 at `outputRate`.
///
/// Implementations name their technology (`SndFileDecoder`, `FFmpegDecoder`);
/// `SniffingDecoder` picks one by the file's content. All of them report what is wrong with
/// a file in the same words (`AudioDecodeError.Reason`: empty, truncated, damaged, not
/// audio, unsupported, …).
public protocol AudioDecoder: Sendable {
    /// The sample rate of the output.
    var outputRate: Int { get }

    /// Decodes `path` chunk by chunk into `sink` (stereo Int16 at `outputRate`) and returns
    /// the frames written. Throws an `AudioDecodeError` when the file is at fault, or
    /// whatever `sink` threw (a full disk, a cancelled import) unchanged. On a throw the
    /// sink may already hold part of the audio: the caller discards it.
    func decode(_ path: String, into sink: some PCMSink) throws -> Int64
}

/// Output frames to reserve for audio the header says lasts `sourceFrames` at `sourceRate`:
/// headers are untrusted, so at most 10 minutes at 48 kHz up front (the audio grows
/// beyond that only as it actually decodes).
package func expectedOutputFrames(sourceFrames: Int64, sourceRate: Int, outputRate: Int) -> Int {
    let maxReservedFrames = 48000 * 600
    guard sourceRate > 0 else { return 16 }
    let ratio = Double(outputRate) / Double(sourceRate)
    let estimate = (Double(max(0, sourceFrames)) * ratio).rounded(.up) + 16
    return estimate < Double(maxReservedFrames) ? Int(estimate) : maxReservedFrames
}
