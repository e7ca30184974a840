import FFmpeg
#if canImport(Glibc)
import Glibc
#endif

/// Demuxes and decodes the first audio stream; frames to standard output as float.
struct HelperDecode {
    let kind: String
    let path: String
    let report: HelperReport

    /// MP4 codes of encrypted audio FFmpeg keeps as the stream's tag.
    static let protectedTags: Set<String> = ["drms", "enca"]

    /// The exit status: 0 when the stream was read to its end (the report says how well).
    func run() -> Int32 {
        let input: MediaInput
        do {
            input = try MediaInput(readingFrom: path)
        } catch {
            report.add("error", error.function == "open" || error.code == -EIO ? "unreadable" : "open",
                       "FFmpeg \(error.function): \(error.message)")
            return 1
        }
        let streams = input.streams
        guard let audio = streams.first(where: { $0.kind == .audio }) else {
            report.add("error", "noaudio", streams.contains { $0.kind == .video } ? "video" : "none")
            return 1
        }
        // The container's duration is the audio's only when the audio is all it holds (a
        // video's picture may run on after the sound), and not a guess from the bit rate.
        let announced = audio.duration ?? (input.durationIsEstimated || streams.count > 1 ? nil : input.duration)
        report.add("stream", audio.codecName, audio.codecTagText, announced.map { String($0) } ?? "-")
        if Self.protectedTags.contains(audio.codecTagText) {
            report.add("error", "protected", audio.codecTagText)
            return 1
        }
        input.discardAll(except: audio.index)
        let decoder: StreamDecoder
        do {
            decoder = try StreamDecoder(input, stream: audio.index)
        } catch {
            report.add(
                "error", error.isDecoderNotFound ? "missingdecoder" : "decoder",
                "FFmpeg \(error.function): \(error.message)")
            return 1
        }
        let expected = announced.map { Int64($0 * Double(max(0, audio.sampleRate))) } ?? 0
        let run: HelperRun
        do {
            run = try HelperRun(path: path, input: input, decoder: decoder, stream: audio.index, expected: expected)
        } catch {
            report.add("error", "convert", "FFmpeg \(error.function): \(error.message)")
            return 1
        }
        let failure = run.decodeAll()
        report.add("done", String(run.sourceFrames), String(run.packets), String(run.badPackets),
                   run.firstBadAt.map { String($0) } ?? "-", run.firstBadMessage ?? "")
        if let failure {
            report.add("error", failure.kind, failure.detail)
            return 1
        }
        return 0
    }
}

/// One pass: packets of one stream through its decoder, frames through libswresample to
/// interleaved float, written to standard output in blocks.
final class HelperRun {
    let path: String
    let input: MediaInput
    let decoder: StreamDecoder
    let stream: Int
    let expected: Int64
    private let packet: Packet
    private let frame: Frame
    private var converter: SampleConverter?
    private var block: [Float] = []
    private static let blockFrames = 16_384
    private(set) var sourceFrames: Int64 = 0
    private(set) var packets = 0
    private(set) var badPackets = 0
    private(set) var firstBadAt: Double?
    private(set) var firstBadMessage: String?

    init(path: String, input: MediaInput, decoder: StreamDecoder, stream: Int, expected: Int64) throws(FFmpegError) {
        self.path = path
        self.input = input
        self.decoder = decoder
        self.stream = stream
        self.expected = expected
        packet = try Packet()
        frame = try Frame()
    }

    private var seconds: Double { Double(sourceFrames) / Double(max(1, converter?.sampleRate ?? 1)) }

    /// Reads to the end; the failure that stopped it early, if one did.
    func decodeAll() -> (kind: String, detail: String)? {
        do {
            while true {
                let more: Bool
                do {
                    more = try input.read(into: packet)
                } catch {
                    return (error.code == -EIO ? "unreadable" : "read",
                            "at \(tenths(seconds)) s: FFmpeg \(error.function): \(error.message)")
                }
                guard more else { break }
                guard packet.streamIndex == stream else { continue }
                if packet.isEncrypted { return ("protected", "encrypted packets") }
                packets += 1
                try send(packet)
            }
            try send(nil)
            try writeBlock()
        } catch let error as FFmpegError {
            return ("convert", "FFmpeg \(error.function): \(error.message)")
        } catch {
            return ("convert", "\(error)")
        }
        return nil
    }

    private func send(_ packet: Packet?) throws {
        while true {
            let accepted: Bool
            do {
                accepted = try decoder.send(packet)
            } catch {
                bad(error)
                return try receiveAll()
            }
            try receiveAll()
            if accepted { return }
        }
    }

    private func receiveAll() throws {
        while true {
            let result: StreamDecoder.Output
            do {
                result = try decoder.receive(frame)
            } catch {
                bad(error)
                continue
            }
            guard result == .frame else { return }
            try take(frame)
        }
    }

    private func bad(_ error: FFmpegError) {
        badPackets += 1
        if firstBadMessage == nil {
            firstBadAt = seconds
            firstBadMessage = "FFmpeg \(error.function): \(error.message)"
        }
    }

    private func take(_ frame: Frame) throws {
        guard frame.sampleCount > 0 else { return }
        if let current = converter {
            // The stream changed layout or rate: convert to the first frame's.
            if !current.accepts(frame) { converter = try SampleConverter(from: frame, to: current, path: path) }
        } else {
            let first = try SampleConverter(from: frame, path: path)
            converter = first
            var header = [UInt8]("SGF1".utf8)
            header += withUnsafeBytes(of: UInt32(first.channels).littleEndian, Array.init)
            header += withUnsafeBytes(of: UInt32(first.sampleRate).littleEndian, Array.init)
            header += withUnsafeBytes(of: expected.littleEndian, Array.init)
            header += [0, 0, 0, 0]
            try header.withUnsafeBytes { try writeOut($0) }
        }
        sourceFrames += Int64(try converter!.convert(frame, appendingTo: &block))
        if block.count >= Self.blockFrames * converter!.channels { try writeBlock() }
    }

    private func writeBlock() throws {
        guard !block.isEmpty else { return }
        try block.withUnsafeBytes { try writeOut($0) }
        block.removeAll(keepingCapacity: true)
    }

    struct WriteFailed: Error {}

    private func writeOut(_ raw: UnsafeRawBufferPointer) throws {
        var offset = 0
        while offset < raw.count {
            let n = write(STDOUT_FILENO, raw.baseAddress! + offset, raw.count - offset)
            if n < 0 && errno == EINTR { continue }
            // The parent stopped reading (an import cancelled): end quietly.
            guard n > 0 else { throw WriteFailed() }
            offset += n
        }
    }
}

/// `value` with one decimal ("12.3"), without Foundation (which would add 50 MB to a
/// static build of this helper).
func tenths(_ value: Double) -> String {
    let scaled = Int((max(0, value) * 10).rounded())
    return "\(scaled / 10).\(scaled % 10)"
}
