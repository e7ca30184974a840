import Glibc

/// A fresh empty directory under /tmp, removed (with what is left in it) by `remove()`.
struct TemporaryDirectory {
    let path: String

    init() {
        var template = Array("/tmp/input-test-XXXXXX".utf8CString)
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        precondition(made != nil, "mkdtemp failed")
        path = String(decoding: template.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Creates or replaces a file with this content.
    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        let fd = open(target, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(target)")
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write")
        close(fd)
        return target
    }

    @discardableResult
    func write(_ name: String, text: String) -> String { write(name, Array(text.utf8)) }

    func remove() { Self.removeTree(path) }

    private static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    String(cString: UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self))
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names {
                let child = path + "/" + name
                if unlink(child) != 0 { removeTree(child) }
            }
            rmdir(path)
        }
    }
}

/// Stands in for EVIOCGNAME: a test "device node" is a file whose content is its name.
@Sendable func nameFromContent(_ path: String) -> String? {
    let fd = open(path, O_RDONLY)
    guard fd >= 0 else { return nil }
    defer { close(fd) }
    var bytes = [UInt8](repeating: 0, count: 256)
    let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    guard count > 0 else { return nil }
    return String(decoding: bytes.prefix(count), as: UTF8.self)
}
