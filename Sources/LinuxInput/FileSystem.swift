import Glibc

/// The little file-system reading the inventories need, over Glibc.
enum FileSystem {
    /// The entries of `directory` whose names start with `prefix` and continue with a number,
    /// sorted by that number (`event2` before `event10`). Empty if unreadable.
    static func numberedEntries(in directory: String, prefix: String) -> [(name: String, number: Int)] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var found: [(name: String, number: Int)] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)) {
                found.append((name, number))
            }
        }
        return found.sorted { $0.number < $1.number }
    }

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
