import LinuxSystem
import Glibc

/// A failure of an input device or its lookup, with what was asked and what exists.
public enum InputError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A system call failed on a path.
    case system(function: String, path: String, errno: Int32)
    /// None of the configured device names is present; `found` lists what is.
    case noDevice(named: [String], found: [InputDevice])
    /// A key or axis name in a configuration is not known.
    case unknownCode(String)

    /// True when the device was unplugged (a read gives ENODEV).
    public var isDisconnect: Bool {
        if case .system(_, _, let errno) = self { return errno == ENODEV }
        return false
    }

    public var description: String {
        switch self {
        case .system(let function, let path, let errno):
            return "\(function) failed for \(path): \(SystemError.text(errno)) (errno \(errno))"
        case .noDevice(let names, let found):
            let wanted = names.map { "\"\($0)\"" }.joined(separator: " or ")
            let present = found.isEmpty ? "none" : found.map { "\($0.path) \"\($0.name)\"" }.joined(separator: ", ")
            return "no input device named \(wanted); devices present: \(present)"
        case .unknownCode(let name):
            return "unknown key or axis name \"\(name)\" (use a KEY_/BTN_/REL_ name or a number)"
        }
    }
}
