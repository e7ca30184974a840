import Foundation
import SegmanceStick
import SegmanceTestSupport
import Testing

/// The stick is hostile input: files FFmpeg reads, with bytes flipped, cut or repeated,
/// either decode or fail with a reason — never crash, hang or balloon.
@Suite(.tags(.integration)) struct HostileMediaTests {
    let temp = TempDirs()

    struct Kind: CustomStringConvertible, Sendable {
        var file: String
        var arguments: [String]
        var description: String { file }
    }

    static let kinds: [Kind] = [
        Kind(file: "aac.m4a", arguments: ["-c:a", "aac"]),
        Kind(file: "alac.m4a", arguments: ["-c:a", "alac"]),
        Kind(file: "faststart.m4a", arguments: ["-c:a", "aac", "-movflags", "+faststart"]),
        Kind(file: "opus.mkv", arguments: ["-c:a", "libopus"]),
        Kind(file: "vorbis.webm", arguments: ["-c:a", "libvorbis"]),
        Kind(file: "song.wma", arguments: ["-c:a", "wmav2"]),
    ]

    @Test(arguments: kinds)
    func mutatedFilesDecodeOrFailWithAReason(_ kind: Kind) throws {
        let dir = try temp.make()
        try TestFiles.write(Signals.music(rate: 48000, frames: 24000), to: dir + "/source.wav")
        try FFmpegTool.encode(dir + "/source.wav", to: dir + "/" + kind.file, kind.arguments)
        let original = [UInt8](try Data(contentsOf: URL(fileURLWithPath: dir + "/" + kind.file)))
        var random = SplitMix(seed: UInt64(kind.file.utf8.reduce(0) { $0 &* 31 &+ Int($1) }.magnitude))
        let decoder = SniffingDecoder()
        var outcomes: [String: Int] = [:]
        for round in 0..<30 {
            var bytes = original
            switch round % 3 {
            case 0:
                for _ in 0..<(1 + Int(random.next() % 16)) {
                    bytes[Int(random.next() % UInt64(bytes.count))] = UInt8(truncatingIfNeeded: random.next())
                }
            case 1:
                bytes = Array(bytes.prefix(Int(random.next() % UInt64(bytes.count))))
            default:
                let at = Int(random.next() % UInt64(bytes.count))
                let length = min(bytes.count - at, 1 + Int(random.next() % 512))
                bytes.insert(contentsOf: bytes[at..<(at + length)], at: at)
            }
            let path = dir + "/mutated-\(round)-" + kind.file
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            do {
                let buffer = try decoder.decodeAll(path)
                // 0.5 s of source: a header that lies does not conjure minutes of audio.
                #expect(buffer.frames < 48000 * 5, "round \(round): \(buffer.frames) frames")
                outcomes["decoded", default: 0] += 1
            } catch {
                #expect(error.path == path)
                #expect(!error.reasonText.isEmpty)
                outcomes[String(error.reasonText.prefix { $0 != ":" && $0 != "(" }), default: 0] += 1
            }
        }
        // The cut rounds at least are noticed.
        #expect(outcomes["decoded", default: 0] < 30, "\(outcomes)")
    }
}

/// A fixed-seed generator (SplitMix64): a failing round can be replayed.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
