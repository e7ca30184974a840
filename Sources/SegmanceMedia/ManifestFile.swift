import LinuxSystem
import Foundation

/// Reads a stick's `routine.toml` within a size bound: the size is checked before a byte
/// is read, and no more than the bound is ever read (a file that grows meanwhile, or
/// whose size lies, is cut off and refused all the same).
enum ManifestFile {
    /// The largest manifest accepted. A routine with 250 parts and their moves fits in a
    /// tenth of it; a larger file is not a manifest a person wrote.
    static let maxBytes = 256 * 1024

    /// The file's bytes, or why it is refused (for the performer; the caller names the file).
    static func read(_ path: String, limit: Int = maxBytes) -> Result<[UInt8], ManifestRefusal> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else { return .failure(.unreadable(SystemError.text(errno))) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(.unreadable(SystemError.text(errno))) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(.notAFile) }
        if info.st_size > limit { return .failure(.tooLarge(Int64(info.st_size), limit: limit)) }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var total = 0
        while total < bytes.count {
            let got = bytes.withUnsafeMutableBytes { buffer -> Int in
                guard let base = buffer.baseAddress else { return 0 }
                return Glibc.read(fd, base + total, buffer.count - total)
            }
            if got < 0 {
                if errno == EINTR { continue }
                return .failure(.unreadable(SystemError.text(errno)))
            }
            if got == 0 { break }
            total += got
        }
        if total > limit { return .failure(.tooLarge(nil, limit: limit)) }
        bytes.removeSubrange(total...)
        return .success(bytes)
    }
}

/// Why a `routine.toml` was not read.
enum ManifestRefusal: Error, Equatable, CustomStringConvertible {
    case unreadable(String)
    case notAFile
    /// Its size (nil when it grew past the limit while read) and the limit, in bytes.
    case tooLarge(Int64?, limit: Int)

    var description: String {
        switch self {
        case .unreadable(let reason): "cannot read routine.toml: \(reason)"
        case .notAFile: "routine.toml is not a regular file"
        case .tooLarge(let size, let limit):
            (size.map { "routine.toml is \(Self.size($0))" } ?? "routine.toml grew while it was read")
                + "; a routine.toml may be at most \(Self.size(Int64(limit))) (it holds titles, cuts, loops and moves, not media)"
        }
    }

    static func size(_ bytes: Int64) -> String {
        if bytes >= 1 << 20 { return String(format: "%.1f MiB", Double(bytes) / Double(1 << 20)) }
        if bytes >= 1 << 10 { return bytes % 1024 == 0 ? "\(bytes >> 10) KiB" : String(format: "%.1f KiB", Double(bytes) / 1024) }
        return "\(bytes) bytes"
    }
}
