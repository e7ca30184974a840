import Glibc

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
