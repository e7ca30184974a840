import Foundation
import LinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A fresh empty folder under /tmp for one test, removed with what is left in it by `remove()`.
/// Files are written with `open` and `write`, in place, as a driver's sysfs or /dev node is.
public struct TemporaryDirectory: Sendable {
    public let path: String

    public init(_ label: String = "test") {
        do {
            path = try Directory.makeUnique(prefix: "/tmp/segmance-\(label)-").path
        } catch {
            preconditionFailure("\(error)")
        }
    }

    /// The path of `name` in this folder.
    public func file(_ name: String) -> String { path + "/" + name }

    /// Creates or replaces a file with this content; its path.
    @discardableResult
    public func write(_ name: String, _ bytes: [UInt8]) -> String {
        let target = file(name)
        let fd = open(target, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        precondition(fd >= 0, "cannot create \(target)")
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        precondition(written == bytes.count, "short write")
        close(fd)
        return target
    }

    /// Creates or replaces a text file; its path.
    @discardableResult
    public func write(_ name: String, text: String) -> String { write(name, Array(text.utf8)) }

    /// Creates an empty file (or leaves one there as it is).
    public func touch(_ name: String) {
        let fd = open(file(name), O_CREAT | O_WRONLY, 0o644)
        precondition(fd >= 0, "cannot create \(name)")
        close(fd)
    }

    /// Removes the folder and everything in it.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
