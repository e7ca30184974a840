import FFmpeg
import Foundation

/// Decodes with FFmpeg's libraries (libavformat, libavcodec, libswresample): AAC and ALAC
/// in MP4/M4A, the first audio stream of a video (MP4, MOV, MKV, WebM; the picture is
/// never decoded), Opus and Vorbis in Matroska/WebM, WMA, raw AAC.
///
/// FFmpeg reads the file through its descriptor only (`MediaInput`): no path, no protocol,
/// no sibling file, a bounded probe, a fixed list of demuxers. Decoded frames become
/// interleaved float in the stream's own channels and rate (libswresample), then go
/// through `OutputConverter`, the conversion `SndFileDecoder` uses too: one stereo mix and
/// one resampler (soxr HQ) for every file, whatever decoded it.
public struct FFmpegDecoder: AudioDecoder {
    public var outputRate: Int
    /// What a file may make libavformat do.
    public var limits: MediaInput.Limits

    public init(outputRate: Int = 48000, limits: MediaInput.Limits = MediaInput.Limits()) {
        self.outputRate = outputRate
        self.limits = limits
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
    func decode(_ path: String, sniff: FileSniff, into sink: some PCMSink) throws -> Int64 {
        let kind = sniff.name
        let input = try open(path, kind: kind)
        let streams = input.streams
        guard let audio = streams.first(where: { $0.kind == .audio }) else {
            let what = streams.contains { $0.kind == .video } ? "a video without sound" : "\(kind) without an audio track"
            throw AudioDecodeError(path: path, reason: .notAudio(what))
        }
        // FFmpeg names a FairPlay entry by its code but reads through common encryption's
        // `sinf` to the codec inside: the sample entries themselves say it.
        let entries = kind == "MP4" ? ISOBoxLayout.sampleEntries(path) : []
        if let protection = ([audio.codecTagText] + entries).lazy.compactMap({ Self.protectedEntries[$0] }).first {
            throw AudioDecodeError(path: path, reason: .copyProtected(protection))
        }
        input.discardAll(except: audio.index)
        let decoder: StreamDecoder
        do {
            decoder = try StreamDecoder(input, stream: audio.index)
        } catch {
            if error.isDecoderNotFound {
                let codec = audio.codecName == "none" ? "an audio codec FFmpeg does not know" : "\(audio.codecName) audio"
                throw AudioDecodeError(path: path, reason: .unsupported("\(kind) with \(codec)"))
            }
            throw AudioDecodeError(path: path, reason: .damaged(
                "its \(audio.codecName) audio cannot be decoded (FFmpeg \(error.function): \(error.message))"))
        }
        if kind == "WMA", let declared = ASFHeader.declaredFileSize(path), let size = Self.fileSize(path), size < declared {
            throw AudioDecodeError(path: path, reason: .truncated(
                "the header announces \(declared) bytes, the file holds \(size)"))
        }
        let announced = audio.duration ?? (input.durationIsEstimated ? nil : input.duration)
        let run = try FFmpegRun(path: path, input: input, decoder: decoder, stream: audio.index,
                                outputRate: outputRate, chunkFrames: Self.chunkFrames)
        let expected = announced.map { Int64($0 * Double(audio.sampleRate)) } ?? 0
        sink.begin(expectedFrames: expectedOutputFrames(sourceFrames: expected, sourceRate: audio.sampleRate,
                                                        outputRate: outputRate))
        try run.decodeAll(into: sink, expectedSourceFrames: expected)
        let decoded = run.seconds
        if run.badPackets > max(2, run.packets / 100) {
            throw AudioDecodeError(path: path, reason: .damaged(
                "\(run.badPackets) of \(run.packets) \(audio.codecName) packets do not decode (the first at "
                + "\(String(format: "%.1f", run.firstBadAt ?? 0)) s: \(run.firstBadMessage ?? ""))"))
        }
        if let announced, decoded < announced - 0.25 - announced / 100 {
            throw AudioDecodeError(path: path, reason: .truncated(
                "the header announces \(String(format: "%.1f", announced)) s of audio, decoding stops at "
                + "\(String(format: "%.1f", decoded)) s"))
        }
        if run.written == 0 { throw AudioDecodeError(path: path, reason: .noAudio) }
        return run.written
    }

    private static func fileSize(_ path: String) -> Int64? {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : nil
    }

    /// Opens the container, or says why it cannot be opened.
    private func open(_ path: String, kind: String) throws(AudioDecodeError) -> MediaInput {
        do {
            return try MediaInput(readingFrom: path, limits: limits)
        } catch {
            if error.function == "open" || error.code == -EIO {
                throw AudioDecodeError(path: path, reason: .unreadable(error.message))
            }
            if kind == "MP4", let layout = ISOBoxLayout.of(path) {
                switch layout {
                case .cut(let type, let end, let size):
                    throw AudioDecodeError(path: path, reason: .truncated(
                        "the file ends at byte \(size), inside its '\(type)' box, which runs to byte \(end)"))
                case .whole(let types) where !types.contains("moov"):
                    throw AudioDecodeError(path: path, reason: .damaged(
                        "the MP4 has no 'moov' box, the index of its audio (it was not finished when written)"))
                case .whole:
                    break
                }
            }
            throw AudioDecodeError(path: path, reason: .damaged(
                "\(kind) data cannot be read (FFmpeg \(error.function): \(error.message))"))
        }
    }
}

/// One decoding pass of `FFmpegDecoder`: packets of one stream through its decoder, frames
/// through libswresample into float chunks, chunks through the shared `OutputConverter`.
private final class FFmpegRun {
    let path: String
    let input: MediaInput
    let decoder: StreamDecoder
    let stream: Int
    let outputRate: Int
    let chunkFrames: Int
    private let packet: Packet
    private let frame: Frame
    private var converter: SampleConverter?
    private var output: OutputConverter?
    private var chunk: [Float] = []
    private var expected: Int64 = 0
    /// Source frames decoded (at the stream's first rate).
    private(set) var sourceFrames: Int64 = 0
    private(set) var packets = 0
    private(set) var badPackets = 0
    private(set) var firstBadAt: Double?
    private(set) var firstBadMessage: String?

    init(path: String, input: MediaInput, decoder: StreamDecoder, stream: Int, outputRate: Int,
         chunkFrames: Int) throws(AudioDecodeError) {
        self.path = path
        self.input = input
        self.decoder = decoder
        self.stream = stream
        self.outputRate = outputRate
        self.chunkFrames = chunkFrames
        do {
            packet = try Packet()
            frame = try Frame()
        } catch {
            throw AudioDecodeError(path: path, reason: .conversion(error.description))
        }
    }

    /// Output frames handed to the sink.
    var written: Int64 { output?.written ?? 0 }
    /// Seconds of audio decoded.
    var seconds: Double { Double(sourceFrames) / Double(max(1, converter?.sampleRate ?? 1)) }

    func decodeAll(into sink: some PCMSink, expectedSourceFrames: Int64) throws {
        expected = expectedSourceFrames
        while true {
            let more: Bool
            do {
                more = try input.read(into: packet)
            } catch {
                if error.code == -EIO { throw AudioDecodeError(path: path, reason: .unreadable(error.message)) }
                throw AudioDecodeError(path: path, reason: .damaged(
                    "the container breaks at \(String(format: "%.1f", seconds)) s (FFmpeg \(error.function): \(error.message))"))
            }
            guard more else { break }
            guard packet.streamIndex == stream else { continue }
            if packet.isEncrypted {
                throw AudioDecodeError(path: path, reason: .copyProtected("encrypted audio"))
            }
            packets += 1
            try send(packet, into: sink)
        }
        try send(nil, into: sink)
        try flushChunk(into: sink)
        try output?.finish(into: sink)
    }

    /// Sends `packet` (nil: the end) and takes every frame it yields. A packet that does not
    /// decode is counted, not fatal: the caller judges how many are too many.
    private func send(_ packet: Packet?, into sink: some PCMSink) throws {
        while true {
            let accepted: Bool
            do {
                accepted = try decoder.send(packet)
            } catch {
                bad(error)
                return try receiveAll(into: sink)
            }
            try receiveAll(into: sink)
            if accepted { return }
        }
    }

    private func receiveAll(into sink: some PCMSink) throws {
        while true {
            let result: StreamDecoder.Output
            do {
                result = try decoder.receive(frame)
            } catch {
                bad(error)
                continue
            }
            guard result == .frame else { return }
            try take(frame, into: sink)
        }
    }

    private func bad(_ error: FFmpegError) {
        badPackets += 1
        if firstBadMessage == nil {
            firstBadAt = seconds
            firstBadMessage = "FFmpeg \(error.function): \(error.message)"
        }
    }

    private func take(_ frame: Frame, into sink: some PCMSink) throws {
        guard frame.sampleCount > 0 else { return }
        do {
            if let current = converter {
                // The stream changed layout or rate: convert to the first frame's.
                if !current.accepts(frame) { converter = try SampleConverter(from: frame, to: current, path: path) }
            } else {
                let first = try SampleConverter(from: frame, path: path)
                converter = first
                output = try OutputConverter(path: path, inputRate: first.sampleRate, channels: first.channels,
                                             outputRate: outputRate)
            }
            sourceFrames += Int64(try converter!.convert(frame, appendingTo: &chunk))
        } catch let error as FFmpegError {
            throw AudioDecodeError(path: path, reason: .damaged(
                "its audio format cannot be converted (FFmpeg \(error.function): \(error.message))"))
        }
        if chunk.count >= chunkFrames * converter!.channels { try flushChunk(into: sink) }
    }

    private func flushChunk(into sink: some PCMSink) throws {
        guard let output, let converter, !chunk.isEmpty else { return }
        try chunk.withUnsafeBufferPointer { try output.push($0, frames: chunk.count / converter.channels, into: sink) }
        chunk.removeAll(keepingCapacity: true)
        sink.progress(sourceFrames: sourceFrames, of: expected)
    }
}
