import Glibc

/// The little file-system reading the inventories need, over Glibc (listing: `Directory`).
enum FileSystem {
    /// `directory/name`.
    static func join(_ directory: String, _ name: String) -> String {
        directory.hasSuffix("/") ? directory + name : directory + "/" + name
    }

    /// A small text file (a sysfs attribute) without its trailing newline; nil if unreadable.
    static func readText(_ path: String, limit: Int = 4096) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: limit)
        let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, limit) }
        guard count >= 0 else { return nil }
        var text = String(decoding: buffer.prefix(count), as: UTF8.self)
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
