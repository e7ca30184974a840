import Foundation
import SndFile

/// Decodes with libsndfile: WAV, FLAC, Ogg Vorbis, Opus, MP3, AIFF, AU, W64, CAF.
///
/// 16-bit mono or stereo sources already at the output rate are copied sample-exactly;
/// everything else is decoded to float and converted by `OutputConverter` (stereo mix,
/// soxr HQ when the rates differ, Int16).
public struct SndFileDecoder: AudioDecoder {
    public var outputRate: Int

    public init(outputRate: Int = 48000) {
        self.outputRate = outputRate
    }

    private static let chunkFrames = 16_384

    public func decode(_ path: String, into sink: some PCMSink) throws -> Int64 {
        try decode(path, sniff: try FileSniff.inspect(path), into: sink)
    }

    /// Decodes `path`, whose first bytes said `sniff`.
    package func decode(_ path: String, sniff: FileSniff, into sink: some PCMSink) throws -> Int64 {
        let file: SoundFile
        do {
            file = try SoundFile(readingFrom: path)
        } catch {
            switch sniff {
            case .audio(let kind), .media(let kind):
                throw AudioDecodeError(path: path, reason: .damaged(
                    "\(kind) data is incomplete or damaged (libsndfile: \(error.message))"))
            case .unsupported(let name):
                throw AudioDecodeError(path: path, reason: .unsupported(name))
            case .text:
                throw AudioDecodeError(path: path, reason: .notAudio("it is a text file"))
            case .unknown:
                throw AudioDecodeError(path: path, reason: .notAudio("libsndfile: \(error.message)"))
            }
        }
        let info = file.info
        try OutputConverter.check(rate: info.sampleRate, channels: info.channels, path: path)
        let log = file.logInfo
        if let detail = Self.truncationInLog(log, info: info) {
            throw AudioDecodeError(path: path, reason: .truncated(detail))
        }
        if case .audio("Ogg") = sniff, let detail = OggTail.truncation(path) {
            throw AudioDecodeError(path: path, reason: .truncated(detail))
        }
        sink.begin(expectedFrames: expectedOutputFrames(sourceFrames: info.frames, sourceRate: info.sampleRate,
                                                        outputRate: outputRate))
        let frames: Int64
        if info.isPCM16 && info.sampleRate == outputRate && info.channels <= 2 {
            frames = try copy16(file, into: sink)
        } else {
            frames = try convert(file, into: sink)
        }
        if frames == 0 { throw AudioDecodeError(path: path, reason: .noAudio) }
        return frames
    }

    /// libsndfile opens a cut WAV/AIFF and quietly shortens it; its log says so.
    private static func truncationInLog(_ log: String, info: SoundFileInfo) -> String? {
        if info.frames == Int64.max || log.contains("ended unexpectedly") {
            return "the stream ends before its end marker"
        }
        for line in log.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            guard trimmed.hasPrefix("data ") || trimmed.hasPrefix("SSND ") else { continue }
            // "data : 384000 (should be 191978)"
            let numbers = trimmed.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
            if trimmed.contains("should be"), numbers.count >= 2, numbers[0] > numbers[1] {
                return "the header announces \(numbers[0]) bytes of audio, the file holds \(numbers[1])"
            }
        }
        return nil
    }

    private func readError(_ error: SoundFileError, file: SoundFile, framesRead: Int64) -> AudioDecodeError {
        let at = Double(framesRead) / Double(file.info.sampleRate)
        return AudioDecodeError(path: file.path, reason: .truncated(
            "decoding stops at \(String(format: "%.1f", at)) s (libsndfile: \(error.message))"))
    }

    /// A short read means the file ended early. MP3 lengths are estimates, so allow 2 %.
    private func checkLength(_ read: Int64, file: SoundFile) throws(AudioDecodeError) {
        let expected = file.info.frames
        let tolerance = file.info.isMPEG ? expected / 50 : 0
        if read + tolerance < expected {
            throw AudioDecodeError(path: file.path, reason: .truncated(
                "the header announces \(expected) frames, only \(read) decode"))
        }
    }

    private func copy16(_ file: SoundFile, into sink: some PCMSink) throws -> Int64 {
        let channels = file.info.channels
        var chunk = [Int16](repeating: 0, count: Self.chunkFrames * channels)
        var stereo = [Int16](repeating: 0, count: Self.chunkFrames * 2)
        let read = try forEachChunk(of: file, in: &chunk, reading: { (file, buffer) throws(SoundFileError) in
            try file.readFrames(into: buffer)
        }, into: sink) { chunk, got in
            if channels == 2 {
                try chunk.withUnsafeBufferPointer { try sink.write(UnsafeBufferPointer(rebasing: $0[0..<(got * 2)])) }
            } else {
                for f in 0..<got {
                    stereo[2 * f] = chunk[f]
                    stereo[2 * f + 1] = chunk[f]
                }
                try stereo.withUnsafeBufferPointer { try sink.write(UnsafeBufferPointer(rebasing: $0[0..<(got * 2)])) }
            }
        }
        try checkLength(read, file: file)
        return read
    }

    /// Reads `file` chunk by chunk into `chunk` and hands each to `body` with its frame
    /// count, reporting progress to `sink`; returns the frames read. A read error is a
    /// truncation at the frames read so far.
    private func forEachChunk<Sample>(
        of file: SoundFile, in chunk: inout [Sample],
        reading read: (SoundFile, UnsafeMutableBufferPointer<Sample>) throws(SoundFileError) -> Int,
        into sink: some PCMSink, _ body: ([Sample], Int) throws -> Void
    ) throws -> Int64 {
        var total: Int64 = 0
        while true {
            let got: Int
            do {
                got = try chunk.withUnsafeMutableBufferPointer { b in
                    Result { () throws(SoundFileError) in try read(file, b) }
                }.get()
            } catch {
                throw readError(error, file: file, framesRead: total)
            }
            if got == 0 { return total }
            total += Int64(got)
            try body(chunk, got)
            sink.progress(sourceFrames: total, of: file.info.frames)
        }
    }

    private func convert(_ file: SoundFile, into sink: some PCMSink) throws -> Int64 {
        let info = file.info
        let converter = try OutputConverter(path: file.path, inputRate: info.sampleRate, channels: info.channels,
                                            outputRate: outputRate)
        var chunk = [Float](repeating: 0, count: Self.chunkFrames * info.channels)
        let read = try forEachChunk(of: file, in: &chunk, reading: { (file, buffer) throws(SoundFileError) in
            try file.readFrames(into: buffer)
        }, into: sink) { chunk, got in
            try chunk.withUnsafeBufferPointer { try converter.push($0, frames: got, into: sink) }
        }
        try converter.finish(into: sink)
        try checkLength(read, file: file)
        return converter.written
    }
}
