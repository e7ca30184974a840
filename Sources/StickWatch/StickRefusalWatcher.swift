#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif
import SegmanceCore

/// Notices sticks the mount helper refused (APFS, an unknown or unsupported file system, an
/// encrypted one, a mount that failed). The helper runs as root from udev and systemd, the
/// player as its own user: the helper leaves one small file a stick in a runtime folder
/// (`/run/segmance-stick/sdb1`, `key=value` lines: device, filesystem, reason, message,
/// written to a dot file and renamed), removed when the stick goes. A file rather than a
/// message on a socket: it is state, so a player that starts (or restarts) after the stick
/// went in still finds it, and the helper needs no player to be listening. inotify wakes the
/// control loop's `poll` when a file appears; the folder may not exist yet (the helper makes
/// it with the first refusal), so its parent is watched until it does.
public final class StickRefusalWatcher {
    public let directory: String
    /// Put in the control loop's poll set (POLLIN); call `changes()` when readable, and once at start.
    public let fileDescriptor: Int32
    /// A status file larger than this is not the helper's: ignored.
    public static let maximumFileBytes = 4096
    private let parent: String
    private var directoryWatch: Int32 = -1
    private var known: [String: StickRefusal] = [:]

    private static let events = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF
                                       | IN_MOVE_SELF)
    private static let parentEvents = UInt32(IN_CREATE | IN_MOVED_TO | IN_ONLYDIR)

    public init(directory: String) throws(SystemError) {
        var trimmed = directory
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        self.directory = trimmed
        if let slash = trimmed.lastIndex(of: "/") {
            parent = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
        } else {
            parent = "."
        }
        fileDescriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fileDescriptor >= 0 else { throw SystemError("inotify_init1", path: directory) }
        guard inotify_add_watch(fileDescriptor, parent, Self.parentEvents) >= 0 else {
            let error = SystemError("inotify_add_watch", path: parent)
            close(fileDescriptor)
            throw error
        }
        watchDirectory()
    }

    deinit { close(fileDescriptor) }

    /// The refusals that appeared (or changed) since the last call, by device name; those
    /// whose files went are forgotten. Drains the descriptor.
    public func changes() -> [StickRefusal] {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffer.withUnsafeMutableBytes({ Glibc.read(fileDescriptor, $0.baseAddress, $0.count) }) > 0 {}
        if directoryWatch < 0 { watchDirectory() }
        var now: [String: StickRefusal] = [:]
        for name in (try? Directory(directory).names()) ?? [] where !name.hasPrefix(".") {
            guard let text = Self.contents(of: directory + "/" + name),
                  let refusal = Self.parse(text, device: name) else { continue }
            now[name] = refusal
        }
        let appeared = now.filter { known[$0.key] != $0.value }.sorted { $0.key < $1.key }.map(\.value)
        known = now
        return appeared
    }

    /// The refusals present as of the last `changes()`.
    public var present: [StickRefusal] { known.values.sorted { $0.device < $1.device } }

    /// A status file's `key=value` lines; nil when it names no reason.
    public static func parse(_ text: String, device: String) -> StickRefusal? {
        let values = values(text)
        guard let reason = values["reason"], !reason.isEmpty else { return nil }
        return StickRefusal(device: device, fileSystem: String(values["filesystem"] ?? ""),
                            reason: StickRefusal.Reason(rawValue: String(reason)) ?? .unsupported,
                            message: String(values["message"] ?? "\(device): \(reason)"))
    }

    /// The volume label the helper read from the stick it mounted as `device` (its status
    /// file in `directory` has a `label=` line and no reason); nil when it has none.
    public static func label(directory: String, device: String) -> String? {
        guard !device.isEmpty, !device.hasPrefix("."), !device.contains("/"),
              let text = contents(of: directory + "/" + device),
              let label = values(text)["label"], !label.isEmpty else { return nil }
        return String(label)
    }

    private static func values(_ text: String) -> [Substring: Substring] {
        var values: [Substring: Substring] = [:]
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            values[line[..<equals]] = line[line.index(after: equals)...]
        }
        return values
    }

    private func watchDirectory() {
        directoryWatch = inotify_add_watch(fileDescriptor, directory, Self.events | UInt32(IN_ONLYDIR))
    }

    package static func contents(of path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: maximumFileBytes + 1)
        var count = 0
        while count < bytes.count {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + count, $0.count - count) }
            if n <= 0 { break }
            count += n
        }
        guard count <= maximumFileBytes else { return nil }
        return String(decoding: bytes[..<count], as: UTF8.self)
    }
}
