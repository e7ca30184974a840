#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif

/// A mounted file system, from a line of /proc/self/mountinfo.
public struct MountEntry: Equatable, Sendable {
    public var mountPoint: String
    public var source: String
    public var fileSystem: String
    public var options: String

    public init(mountPoint: String, source: String, fileSystem: String, options: String) {
        self.mountPoint = mountPoint
        self.source = source
        self.fileSystem = fileSystem
        self.options = options
    }
}

/// A stick mounted or unmounted under the media root.
public enum MountChange: Equatable, Sendable {
    case appeared(MountEntry)
    case disappeared(MountEntry)
}

/// Notices file systems appearing and disappearing under a media root (e.g. /media, where
/// udisks or a udev rule mounts sticks read-only, nosuid, nodev, noexec) without a busy
/// loop: the kernel flags /proc/self/mountinfo (POLLPRI | POLLERR) when the mount table
/// changes. Put `fileDescriptor` in the control loop's poll set with `POLLPRI`, and call
/// `changes()` when it fires — and once at start: mounts already there are reported as
/// appeared by the first call.
public final class MountWatcher {
    /// Mount points strictly below this folder are sticks.
    public let root: String
    public let path: String
    public let fileDescriptor: Int32
    /// The poll events to wait for on `fileDescriptor`.
    public static let pollEvents = Int16(POLLPRI | POLLERR)
    private var known: [String: MountEntry] = [:]

    public init(root: String, mountinfo: String = "/proc/self/mountinfo") throws(SystemError) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.path = mountinfo
        fileDescriptor = open(mountinfo, O_RDONLY | O_CLOEXEC)
        guard fileDescriptor >= 0 else { throw SystemError("open", path: mountinfo) }
    }

    deinit { close(fileDescriptor) }

    /// What appeared and disappeared under the root since the last call. Reading the table
    /// also re-arms the descriptor.
    public func changes() throws(SystemError) -> [MountChange] {
        let now = Dictionary(Self.parse(try readTable()).filter { isStick($0.mountPoint) }.map { ($0.mountPoint, $0) },
                             uniquingKeysWith: { _, last in last })
        var result: [MountChange] = []
        // A remount (read-write for *Save to stick*, then read-only) changes only the
        // options: the same stick, neither gone nor new.
        func same(_ a: MountEntry?, _ b: MountEntry) -> Bool {
            a?.source == b.source && a?.fileSystem == b.fileSystem
        }
        for (point, entry) in known.sorted(by: { $0.key < $1.key }) where !same(now[point], entry) {
            result.append(.disappeared(entry))
        }
        for (point, entry) in now.sorted(by: { $0.key < $1.key }) where !same(known[point], entry) {
            result.append(.appeared(entry))
        }
        known = now
        return result
    }

    /// The sticks mounted as of the last `changes()`.
    public var mounted: [MountEntry] { known.values.sorted { $0.mountPoint < $1.mountPoint } }

    private func isStick(_ mountPoint: String) -> Bool {
        mountPoint.hasPrefix(root == "/" ? "/" : root + "/") && mountPoint != root
    }

    private func readTable() throws(SystemError) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        var offset: off_t = 0
        while true {
            let n = retryingEINTR {
                chunk.withUnsafeMutableBytes { pread(fileDescriptor, $0.baseAddress, $0.count, offset) }
            }
            guard n >= 0 else { throw SystemError("pread", path: path) }
            if n == 0 { break }
            bytes += chunk[0..<n]
            offset += off_t(n)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Parses mountinfo lines: `id parent major:minor root mountpoint options [optional…] -
    /// fstype source superoptions`, with `\040`-style octal escapes in paths.
    public static func parse(_ text: String) -> [MountEntry] {
        text.split(separator: "\n").compactMap { line in
            let fields = line.split(separator: " ", omittingEmptySubsequences: false)
            guard fields.count >= 10, let dash = fields.firstIndex(of: "-"), dash >= 6, dash + 2 < fields.count else {
                return nil
            }
            return MountEntry(mountPoint: unescape(fields[4]), source: unescape(fields[dash + 2]),
                              fileSystem: String(fields[dash + 1]), options: String(fields[5]))
        }
    }

    static func unescape(_ field: Substring) -> String {
        var out: [UInt8] = []
        let bytes = Array(field.utf8)
        var i = 0
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\"), i + 3 < bytes.count,
               let value = UInt8(String(decoding: bytes[(i + 1)...(i + 3)], as: UTF8.self), radix: 8) {
                out.append(value)
                i += 4
            } else {
                out.append(bytes[i])
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
