#if canImport(Glibc)
import Glibc
#endif

/// A directory's entries (`opendir`, `readdir`), without "." and "..".
public struct Directory: Sendable {
    /// One entry: its name and, where the file system says, its kind.
    public struct Entry: Sendable, Equatable {
        /// The name; nil when it is not valid UTF-8.
        public var name: String?
        /// `DT_…` (`DT_DIR`, `DT_REG`, `DT_LNK`; `DT_UNKNOWN` when the file system does not say).
        public var kind: UInt8
    }

    /// The directory's path.
    public let path: String

    /// The directory at `path` (nothing is opened until it is listed).
    public init(_ path: String) {
        self.path = path
    }

    /// Creates a new empty directory, mode 0700, named `prefix` and six random characters
    /// (`mkdtemp`), e.g. prefix "/tmp/segmance-" gives "/tmp/segmance-a1B2c3".
    public static func makeUnique(prefix: String) throws(SystemError) -> Directory {
        var template = Array((prefix + "XXXXXX").utf8CString)
        // mkdtemp fills in the template in place: its path is read while the array is alive.
        let made: Result<String, SystemError> = template.withUnsafeMutableBufferPointer { buffer in
            guard let path = mkdtemp(buffer.baseAddress!) else {
                return .failure(SystemError("mkdtemp", path: prefix + "XXXXXX"))
            }
            return .success(String(cString: path))
        }
        return Directory(try made.get())
    }

    // The name is read where the kernel put it, NUL-terminated: on exFAT and NTFS it may be
    // longer than the 256 bytes `dirent.d_name` declares.
    private static let nameOffset = MemoryLayout<dirent>.offset(of: \dirent.d_name) ?? 19

    /// Hands each entry to `body` in the kernel's order until `body` returns false. Throws
    /// when the directory cannot be opened (`opendir`) or read to its end (`readdir`, after
    /// the entries read before).
    public func forEachEntry(_ body: (Entry) -> Bool) throws(SystemError) {
        guard let stream = opendir(path) else { throw SystemError("opendir", path: path) }
        defer { closedir(stream) }
        while true {
            errno = 0
            guard let entry = readdir(stream) else {
                if errno != 0 { throw SystemError("readdir", path: path) }
                return
            }
            let raw = (UnsafeRawPointer(entry) + Self.nameOffset).assumingMemoryBound(to: CChar.self)
            if raw[0] == 0x2E && (raw[1] == 0 || (raw[1] == 0x2E && raw[2] == 0)) { continue }
            guard body(Entry(name: String(validatingCString: raw), kind: entry.pointee.d_type)) else { return }
        }
    }

    /// The entries' names in the kernel's order (names that are not UTF-8 are left out).
    public func names() throws(SystemError) -> [String] {
        var names: [String] = []
        try forEachEntry { entry in
            if let name = entry.name { names.append(name) }
            return true
        }
        return names
    }

    /// The names that start with `prefix` and continue with a number, sorted by it
    /// (`event2` before `event10`); none when the directory cannot be read.
    public func numbered(prefix: String) -> [(name: String, number: Int)] {
        let names = (try? names()) ?? []
        return names.compactMap { name in
            guard name.hasPrefix(prefix), let number = Int(name.dropFirst(prefix.count)) else { return nil }
            return (name, number)
        }.sorted { $0.number < $1.number }
    }
}
