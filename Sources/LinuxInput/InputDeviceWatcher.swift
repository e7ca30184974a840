import Glibc

/// A configured device coming or going.
public enum InputDeviceChange: Equatable, Sendable {
    case appeared(InputDevice)
    case disappeared(InputDevice)
}

/// Finds the input devices whose names are configured and follows them being plugged in and
/// out, with inotify on the device directory (`/dev/input`). The directory itself may be
/// absent at first — a board with no input device has none until one is plugged in — so
/// its parent is watched too.
///
/// Used from one thread at a time; it may move between threads.
public final class InputDeviceWatcher: @unchecked Sendable {
    /// The device names asked for.
    public let names: [String]
    /// The directory of the `eventN` nodes.
    public let directory: String
    /// The devices present whose name is configured, in node number order.
    public private(set) var devices: [InputDevice] = []

    private let nameReader: InputInventory.NameReader
    private let inotify: Int32
    private var directoryWatch: Int32 = -1
    private var parentWatch: Int32 = -1
    private let parent: String
    private let base: String
    private var buffer = [UInt8](repeating: 0, count: 16 * 1024)

    private static let nodeEvents = UInt32(IN_CREATE | IN_ATTRIB | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO
        | IN_DELETE_SELF | IN_MOVE_SELF)
    private static let parentEvents = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_ONLYDIR)

    /// Starts watching. Call `scan()` next for the devices already present.
    /// - Parameter nameReader: reads a node's name; tests stand in for `EVIOCGNAME`.
    public init(names: [String], directory: String = "/dev/input",
                nameReader: @escaping InputInventory.NameReader = EvdevDevice.name(at:)) throws
    {
        self.names = names
        self.directory = directory
        self.nameReader = nameReader
        var trimmed = directory
        while trimmed.count > 1 && trimmed.hasSuffix("/") { trimmed.removeLast() }
        if let slash = trimmed.lastIndex(of: "/") {
            parent = slash == trimmed.startIndex ? "/" : String(trimmed[..<slash])
            base = String(trimmed[trimmed.index(after: slash)...])
        } else {
            parent = "."
            base = trimmed
        }
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { throw InputError.system(function: "inotify_init1", path: directory, errno: errno) }
        parentWatch = inotify_add_watch(inotify, parent, Self.parentEvents)
        guard parentWatch >= 0 else {
            let error = errno
            close(inotify)
            throw InputError.system(function: "inotify_add_watch", path: parent, errno: error)
        }
        do {
            try watchDirectory()
        } catch {
            close(inotify)
            throw error
        }
    }

    deinit {
        close(inotify)
    }

    /// The inotify descriptor, for poll(2); when readable, call `readChanges()`.
    public var fileDescriptor: Int32 { inotify }

    /// Looks at every node now and reports the differences from `devices`.
    public func scan() -> [InputDeviceChange] {
        let present = InputInventory.devices(in: directory, nameReader: nameReader).filter { names.contains($0.name) }
        let gone = devices.filter { !present.contains($0) }.map(InputDeviceChange.disappeared)
        let new = present.filter { !devices.contains($0) }.map(InputDeviceChange.appeared)
        devices = present
        return gone + new
    }

    /// The changes inotify has reported since the last call; empty when none. Never blocks.
    public func readChanges() throws -> [InputDeviceChange] {
        var changes: [InputDeviceChange] = []
        var rescan = false
        while true {
            let count = buffer.withUnsafeMutableBytes { read(inotify, $0.baseAddress, $0.count) }
            if count < 0 {
                let error = errno
                if error == EINTR { continue }
                if error == EAGAIN || error == EWOULDBLOCK { break }
                throw InputError.system(function: "read(inotify)", path: directory, errno: error)
            }
            for note in Self.parse(buffer.prefix(count)) {
                if note.mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    rescan = true
                } else if note.watch == parentWatch {
                    if note.name == base { try watchDirectory(); rescan = true }
                } else if note.watch == directoryWatch {
                    if note.mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                        inotify_rm_watch(inotify, directoryWatch)
                        directoryWatch = -1
                        rescan = true
                    } else if note.name.hasPrefix("event") {
                        changes += nodeChanged(FileSystem.join(directory, note.name), mask: note.mask)
                    }
                }
            }
        }
        if rescan { changes += scan() }
        return changes
    }

    /// Waits until inotify reports something or the timeout passes, then returns the changes.
    /// - Parameter timeoutNanoseconds: nil waits without limit.
    public func wait(timeoutNanoseconds: Int64?) throws -> [InputDeviceChange] {
        var entry = pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)
        let milliseconds: Int32 = timeoutNanoseconds.map {
            let nanoseconds = max($0, 0)
            return Int32(min(nanoseconds / 1_000_000 + (nanoseconds % 1_000_000 == 0 ? 0 : 1), Int64(Int32.max)))
        } ?? -1
        if poll(&entry, 1, milliseconds) < 0 && errno != EINTR {
            throw InputError.system(function: "poll", path: directory, errno: errno)
        }
        return try readChanges()
    }

    private func nodeChanged(_ path: String, mask: UInt32) -> [InputDeviceChange] {
        if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
            guard let index = devices.firstIndex(where: { $0.path == path }) else { return [] }
            return [.disappeared(devices.remove(at: index))]
        }
        // Created, moved in, or made readable by udev: a node we could not name before may
        // be nameable now.
        guard !devices.contains(where: { $0.path == path }),
              let name = nameReader(path), names.contains(name) else { return [] }
        let device = InputDevice(path: path, name: name)
        devices.append(device)
        devices.sort { Self.number($0.path) < Self.number($1.path) }
        return [.appeared(device)]
    }

    private func watchDirectory() throws {
        guard directoryWatch < 0 else { return }
        let watch = inotify_add_watch(inotify, directory, Self.nodeEvents)
        if watch < 0 {
            // Not there yet: the parent's watch reports its creation.
            if errno == ENOENT || errno == ENOTDIR { return }
            throw InputError.system(function: "inotify_add_watch", path: directory, errno: errno)
        }
        directoryWatch = watch
    }

    private static func number(_ path: String) -> Int {
        Int(path.reversed().prefix { $0.isNumber }.reversed().map(String.init).joined()) ?? Int.max
    }

    struct Notification {
        var watch: Int32
        var mask: UInt32
        var name: String
    }

    /// Splits a read of the inotify fd into `struct inotify_event` records
    /// (`{ int wd; u32 mask; u32 cookie; u32 len; char name[len]; }`).
    static func parse(_ bytes: ArraySlice<UInt8>) -> [Notification] {
        var notes: [Notification] = []
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset + 16 <= raw.count {
                let watch = raw.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let nameBytes = raw[(offset + 16)..<min(offset + 16 + length, raw.count)]
                let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
                notes.append(Notification(watch: watch, mask: mask, name: name))
                offset += 16 + length
            }
        }
        return notes
    }
}
