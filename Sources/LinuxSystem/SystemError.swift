import CLinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// A system call failed: which call, on what (a path, a descriptor's purpose), errno and
/// its `strerror` text. Its text is "function(subject): strerror text".
public struct SystemError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The failed call, e.g. "open".
    public var function: String
    /// What it was called on: a path, or what a descriptor or thread is for.
    public var subject: String
    /// The errno value.
    public var code: Int32
    /// Replaces the strerror text when the failure needs a more specific explanation.
    public var note: String?

    /// `function` failed on `subject` with `code` (by default the current errno).
    public init(_ function: String, subject: String, code: Int32 = errno) {
        self.function = function
        self.subject = subject
        self.code = code
    }

    /// `function` failed on the file at `path` with `code` (by default the current errno).
    public init(_ function: String, path: String, code: Int32 = errno) {
        self.init(function, subject: path, code: code)
    }

    /// The subject when it is a file's path.
    public var path: String { subject }

    /// The note, or the strerror text of `code`.
    public var message: String { note ?? Self.text(code) }

    /// True when the file system is out of space or over a size limit.
    public var isDiskFull: Bool { code == ENOSPC || code == EFBIG || code == EDQUOT }

    public var description: String { "\(function)(\(subject)): \(message)" }

    /// The same failure with `note` in place of the strerror text.
    public func withNote(_ note: String) -> SystemError {
        var copy = self
        copy.note = note
        return copy
    }

    /// The strerror text of an errno value, e.g. "No such file or directory".
    public static func text(_ code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        return buffer.withUnsafeMutableBufferPointer { b in
            String(cString: segmance_strerror(code, b.baseAddress!, b.count))
        }
    }
}
