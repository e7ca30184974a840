import AudioDecoding
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Decodes with FFmpeg's libraries (libavformat, libavcodec, libswresample): AAC and ALAC
/// in MP4/M4A, the first audio stream of a video (MP4, MOV, MKV, WebM; the picture is
/// never decoded), Opus and Vorbis in Matroska/WebM, WMA, raw AAC.
///
/// FFmpeg runs in a helper process, `segmance-ffmpeg`: this process never loads libavcodec
/// (and the ~120 libraries it pulls in, which would double the daemon's start-up time and
/// resident memory), and a file that crashes FFmpeg, or makes it loop or swell past the
/// helper's limits, fails as a damaged file instead of taking the appliance down. The
/// helper reads the file through its descriptor only (no path, no protocol, no sibling,
/// a bounded probe, a fixed list of demuxers) and sends the stream's frames as float in
/// their own channels and rate; here they go through `OutputConverter`, the conversion
/// `SndFileDecoder` uses too: one stereo mix and one resampler (soxr HQ) for every file.
public struct FFmpegDecoder: AudioDecoder {
    public var outputRate: Int
    /// The helper's path; nil: `FFmpegHelperProcess.locate()`.
    public var helper: String?

    public init(outputRate: Int = 48000, helper: String? = nil) {
        self.outputRate = outputRate
        self.helper = helper
    }

    /// MP4 sample-entry codes of encrypted audio, with what they are.
    static let protectedEntries: [String: String] = [
        "drms": "an iTunes Store purchase with FairPlay DRM",
        "enca": "encrypted MP4 audio",
    ]

    private static let chunkFrames = 16_384

    public func decode(_ path: String, into sink: some PCMSink) throws -> Int64 {
        try decode(path, sniff: try FileSniff.inspect(path), into: sink)
    }

    /// Decodes `path`, whose first bytes said `sniff`.
    package func decode(_ path: String, sniff: FileSniff, into sink: some PCMSink) throws -> Int64 {
        let kind = sniff.name
        try checkStructure(path, kind: kind)
        guard let helper = helper ?? FFmpegHelperProcess.locate() else {
            throw AudioDecodeError(path: path, reason: .unsupported(
                "\(kind): its decoder segmance-ffmpeg is not installed"))
        }
        let child = try FFmpegHelperProcess(helper: helper, kind: kind, path: path)
        var written: Int64 = 0
        do {
            written = try stream(child, path: path, into: sink)
        } catch {
            child.stop()
            throw error
        }
        let outcome = child.finish()
        try judge(outcome, path: path, kind: kind, written: written)
        return written
    }

    /// What the file's own structure says before FFmpeg reads it: a FairPlay or
    /// common-encryption sample entry (FFmpeg reads through `sinf` to the codec inside), a
    /// WMA shorter than its header says (FFmpeg then drops the duration it would check).
    private func checkStructure(_ path: String, kind: String) throws(AudioDecodeError) {
        if kind == "MP4",
           let protection = ISOBoxLayout.sampleEntries(path).lazy.compactMap({ Self.protectedEntries[$0] }).first {
            throw AudioDecodeError(path: path, reason: .copyProtected(protection))
        }
        if kind == "WMA", let declared = ASFHeader.declaredFileSize(path) {
            var info = stat()
            if stat(path, &info) == 0, Int64(info.st_size) < declared {
                throw AudioDecodeError(path: path, reason: .truncated(
                    "the header announces \(declared) bytes, the file holds \(info.st_size)"))
            }
        }
    }

    /// Reads the helper's header and frames into `sink`; the output frames written.
    private func stream(_ child: FFmpegHelperProcess, path: String, into sink: some PCMSink) throws -> Int64 {
        var header = [UInt8](repeating: 0, count: 24)
        guard header.withUnsafeMutableBytes({ child.fill($0) }) == 24, header.starts(with: Array("SGF1".utf8)) else {
            return 0  // no audio came: the report says why
        }
        func field<T: FixedWidthInteger>(_ offset: Int, _: T.Type) -> T {
            header[offset..<(offset + MemoryLayout<T>.size)].enumerated()
                .reduce(T.zero) { $0 | T($1.element) << (8 * $1.offset) }
        }
        let channels = Int(field(4, UInt32.self)), rate = Int(field(8, UInt32.self))
        let expected = field(12, Int64.self)
        try OutputConverter.check(rate: rate, channels: channels, path: path)
        sink.begin(expectedFrames: expectedOutputFrames(sourceFrames: expected, sourceRate: rate,
                                                        outputRate: outputRate))
        let converter = try OutputConverter(path: path, inputRate: rate, channels: channels, outputRate: outputRate)
        var block = [Float](repeating: 0, count: Self.chunkFrames * channels)
        var source: Int64 = 0
        while true {
            let bytes = block.withUnsafeMutableBytes { child.fill($0) }
            let frames = bytes / (4 * channels)
            if frames == 0 { break }
            try block.withUnsafeBufferPointer { try converter.push($0, frames: frames, into: sink) }
            source += Int64(frames)
            sink.progress(sourceFrames: source, of: expected)
            if bytes < block.count * 4 { break }
        }
        try converter.finish(into: sink)
        return converter.written
    }

    /// Turns the helper's report into the file's problem, if it has one.
    private func judge(_ outcome: FFmpegHelperProcess.Outcome, path: String, kind: String,
                       written: Int64) throws(AudioDecodeError) {
        func line(_ key: String) -> [String]? { outcome.lines.first { $0.first == key } }
        let stream = line("stream")
        let codec = stream.flatMap { $0.count > 1 ? $0[1] : nil } ?? "audio"
        let announced = stream.flatMap { $0.count > 3 ? Double($0[3]) : nil }
        if let error = line("error"), error.count >= 3 {
            let detail = error[2]
            let reason: AudioDecodeError.Reason
            switch error[1] {
            case "unreadable": reason = .unreadable(detail)
            case "open": reason = openFailure(path, kind: kind, detail: detail)
            case "noaudio":
                reason = .notAudio(detail == "video" ? "a video without sound" : "\(kind) without an audio track")
            case "protected": reason = .copyProtected(Self.protectedEntries[detail] ?? "encrypted audio")
            case "missingdecoder":
                reason = .unsupported("\(kind) with "
                    + (codec == "none" ? "an audio codec FFmpeg does not know" : "\(codec) audio"))
            case "decoder": reason = .damaged("its \(codec) audio cannot be decoded (\(detail))")
            case "read": reason = .damaged("the container breaks \(detail)")
            default: reason = .damaged("its audio cannot be converted (\(detail))")
            }
            throw AudioDecodeError(path: path, reason: reason)
        }
        guard let done = line("done"), done.count >= 6, Int64(done[1]) != nil,
              let packets = Int(done[2]), let bad = Int(done[3]) else {
            let how = outcome.signal.map {
                $0 == SIGXCPU ? "it took FFmpeg over \(10) minutes of CPU" : "FFmpeg crashed on it (signal \($0))"
            }
                ?? "FFmpeg stopped on it (exit status \(outcome.status ?? -1))"
            throw AudioDecodeError(path: path, reason: .damaged(how))
        }
        if bad > max(2, packets / 100) {
            throw AudioDecodeError(path: path, reason: .damaged(
                "\(bad) of \(packets) \(codec) packets do not decode (the first at "
                + "\(String(format: "%.1f", Double(done[4]) ?? 0)) s: \(done[5]))"))
        }
        let decoded = Double(written) / Double(outputRate)
        if let announced, decoded < announced - 0.25 - announced / 100 {
            throw AudioDecodeError(path: path, reason: .truncated(
                "the header announces \(String(format: "%.1f", announced)) s of audio, decoding stops at "
                + "\(String(format: "%.1f", decoded)) s"))
        }
        if written == 0 { throw AudioDecodeError(path: path, reason: .noAudio) }
    }

    /// Why FFmpeg could not open the container: a cut MP4, one without its index, or damage.
    private func openFailure(_ path: String, kind: String, detail: String) -> AudioDecodeError.Reason {
        if kind == "MP4", let layout = ISOBoxLayout.of(path) {
            switch layout {
            case .cut(let type, let end, let size):
                return .truncated("the file ends at byte \(size), inside its '\(type)' box, which runs to byte \(end)")
            case .whole(let types) where !types.contains("moov"):
                return .damaged("the MP4 has no 'moov' box, the index of its audio (it was not finished when written)")
            case .whole:
                break
            }
        }
        return .damaged("\(kind) data cannot be read (\(detail))")
    }
}
