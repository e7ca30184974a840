#if canImport(Glibc)
import Glibc
#endif

/// Builds a small folder tree from fuzz bytes, read as a list of steps: make a folder and
/// go into it, go up, write a file, make a link or a FIFO. Names come from a list of those
/// a stick holds (audio, routine.toml, debris, natural-order traps) or from the bytes
/// themselves (any byte but '/' and NUL: not UTF-8, control characters, 255 bytes long).
/// Bounded: at most `maxSteps` steps, `maxDepth` folders deep, `maxFileBytes` a file.
struct TreeRecipe {
    static let maxSteps = 64
    static let maxDepth = 7
    static let maxFileBytes = 4096

    static let names: [String] = [
        "routine.toml", "ROUTINE.TOML", "a.wav", "b.mp3", "01 Intro.flac", "Part 2.ogg", "Part 10.opus",
        "c.aiff", "d.m4a", "e.mp4", "f.mkv", "g.wma", "h.aac", "song.mid", "notes.txt", ".DS_Store",
        "._a.wav", "Thumbs.db", "System Volume Information", "$RECYCLE.BIN", ".hidden.wav", "Ä.wav",
        "A\u{308}.wav", "routine", "x", "..wav", " .wav", "a.WAV",
    ]

    /// Where links point: up and out of the stick, to itself, to siblings, nowhere.
    static let linkTargets: [String] = [
        "..", "../..", "../../..", ".", "/", "/etc", "/etc/passwd", "/proc/self/fd/0", "/dev/zero",
        "a.wav", "routine.toml", "x", "x/..", "missing", "../x", "/dev/null",
    ]

    private var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
    }

    private mutating func next() -> UInt8? { bytes.popFirst() }

    private mutating func name() -> [UInt8] {
        guard let pick = next() else { return Array("x".utf8) }
        if Int(pick) < Self.names.count * 8 { return Array(Self.names[Int(pick) % Self.names.count].utf8) }
        // Raw bytes, '/' and NUL left out; "." and ".." cannot be made.
        let length = Int(pick & 0x1F) == 0x1F ? 255 : Int(pick & 0x1F) + 1
        var raw: [UInt8] = []
        while raw.count < length, let byte = next() {
            if byte != 0 && byte != 0x2F { raw.append(byte) }
        }
        while raw.count < length && length == 255 { raw.append(UInt8(ascii: "n")) }
        if raw.isEmpty || raw == [0x2E] || raw == [0x2E, 0x2E] { raw = Array("r".utf8) }
        return raw
    }

    private mutating func content() -> [UInt8] {
        guard let size = next() else { return [] }
        let length = min(Self.maxFileBytes, Int(size) * 16)
        let taken = bytes.prefix(length)
        bytes = bytes.dropFirst(taken.count)
        return Array(taken)
    }

    /// Makes the tree under `root` (an empty folder).
    mutating func build(in root: [UInt8]) {
        var folders: [[UInt8]] = [root]
        var steps = 0
        while steps < Self.maxSteps, let op = next() {
            steps += 1
            let here = folders.last!
            switch op % 8 {
            case 0, 1:
                guard folders.count <= Self.maxDepth else { continue }
                let path = here + [0x2F] + name()
                if mkdir(cString(path), 0o755) == 0 { folders.append(path) }
            case 2:
                if folders.count > 1 { folders.removeLast() }
            case 3, 4, 5:
                let path = here + [0x2F] + name()
                write(content(), to: path)
            case 6:
                let target = Self.linkTargets[Int(next() ?? 0) % Self.linkTargets.count]
                _ = symlink(target, cString(here + [0x2F] + name()))
            default:
                _ = mkfifo(cString(here + [0x2F] + name()), 0o644)
            }
        }
    }

    private func write(_ data: [UInt8], to path: [UInt8]) {
        let fd = open(cString(path), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, 0o644)
        guard fd >= 0 else { return }
        defer { close(fd) }
        _ = data.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
    }

    private func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
