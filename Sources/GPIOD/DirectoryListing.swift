import Glibc

/// Names in a directory, for finding `/dev/gpiochipN` nodes.
enum DirectoryListing {
    /// The entries of `directory` whose names start with `prefix`, sorted by the number
    /// that follows the prefix (`gpiochip2` before `gpiochip10`). Empty if unreadable.
    static func numberedEntries(in directory: String, prefix: String) -> [String] {
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
            }
            if name.hasPrefix(prefix) { names.append(name) }
        }
        return names.sorted { number(in: $0, after: prefix) < number(in: $1, after: prefix) }
    }

    private static func number(in name: String, after prefix: String) -> (Int, String) {
        (Int(name.dropFirst(prefix.count)) ?? Int.max, name)
    }
}
