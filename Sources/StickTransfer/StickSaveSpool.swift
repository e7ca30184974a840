import SegmanceLibrary
import StickWatch

#if canImport(Glibc)
import LinuxSystem
import Glibc
#endif

/// How *Save to stick* reaches a stick the player cannot write. On the device the stick is
/// mounted read-only by the mount helper (root), and the player (its own user, no root, no
/// capabilities) may write only its library's disk. So the player writes the routines into
/// `DIRECTORY/outbox/Segmance/TITLE/` and asks with a request file, `DIRECTORY/request`
/// (`id=…` and `device=sda1` lines, a dot file renamed); systemd's `segmance-stick-save.path`
/// sees it and starts the helper (`segmance-stick save DIRECTORY`), which remounts the stick
/// read-write, copies each folder in under a dot name with every file and folder fsynced,
/// renames it into place, remounts read-only and answers in the stick status folder:
/// `save-result` with the request's `id`, `status` (saved, full, locked, gone, failed),
/// a `folder` line for each folder written, and a `message`. No socket, no polkit: two small files.
public struct StickSaveSpool {
    /// The folder the player writes (`/var/lib/segmance/stick-save`: `<library>/stick-save`).
    public let directory: String
    /// The mount helper's status folder, where the answer comes (`/run/segmance-stick`).
    public let statusDirectory: String
    /// The name of the helper's answer in `statusDirectory` (not a kernel device name).
    public static let resultName = "save-result"

    public init(directory: String, statusDirectory: String) {
        self.directory = directory
        self.statusDirectory = statusDirectory
    }

    /// Where the routines to save are written (its `Segmance` folder holds one per routine).
    public var outbox: String { directory + "/outbox" }
    public var requestPath: String { directory + "/request" }
    public var resultPath: String { statusDirectory + "/" + Self.resultName }

    /// Empties the outbox (what an earlier save left) and makes the folders anew.
    public func clear() throws(SystemError) {
        for path in [directory, outbox] where mkdir(path, 0o700) != 0 && errno != EEXIST {
            throw SystemError("mkdir", path: path)
        }
        let base = outbox + "/" + RoutineExporter.folder
        for name in (try? Directory(base).names()) ?? [] { RoutineExporter.removeTree(base + "/" + name) }
        rmdir(base)
    }

    /// Asks the helper to copy the outbox to the stick mounted as `device` (`sda1`); returns
    /// the request's id, which its answer carries.
    @discardableResult
    public func request(device: String, id: String) throws(SystemError) -> String {
        let text = "id=\(id)\ndevice=\(device)\n"
        try Self.writeAtomically(text, to: requestPath, temporary: directory + "/.request.tmp")
        return id
    }

    /// The helper's answer to request `id`, once it is there.
    public func result(id: String) -> StickSaveResult? {
        guard let text = StickRefusalWatcher.contents(of: resultPath),
              let result = StickSaveResult(parsing: text), result.id == id else { return nil }
        return result
    }

    static func writeAtomically(_ text: String, to path: String, temporary: String) throws(SystemError) {
        let fd = open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw SystemError("open", path: temporary) }
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let code = errno
        close(fd)
        guard written == bytes.count else { throw SystemError("write", path: temporary, code: code) }
        guard rename(temporary, path) == 0 else { throw SystemError("rename", path: path) }
    }
}

/// The mount helper's answer to a *Save to stick* request (`key=value` lines).
public struct StickSaveResult: Equatable, Sendable {
    public enum Status: String, Sendable { case saved, full, locked, gone, failed }
    public var id: String
    public var status: Status
    /// The folders written, relative to the stick ("Segmance/Salsa").
    public var folders: [String]
    public var message: String

    public init(id: String, status: Status, folders: [String] = [], message: String = "") {
        self.id = id
        self.status = status
        self.folders = folders
        self.message = message
    }

    /// Nil when it has no id or an unknown status.
    public init?(parsing text: String) {
        var values: [Substring: Substring] = [:]
        var folders: [String] = []
        for line in text.split(separator: "\n") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            let value = line[line.index(after: equals)...]
            if line[..<equals] == "folder" { folders.append(RoutineExporter.folder + "/" + value) }
            values[line[..<equals]] = value
        }
        guard let id = values["id"], !id.isEmpty,
              let status = values["status"].flatMap({ Status(rawValue: String($0)) }) else { return nil }
        self.id = String(id)
        self.status = status
        self.folders = folders
        message = String(values["message"] ?? "")
    }

    /// The failure it reports, nil when saved.
    public var failure: ExportFailure? {
        switch status {
        case .saved: nil
        case .full: .full(message)
        case .locked: .writeProtected(message)
        case .gone: .gone(message)
        case .failed: .failed(message)
        }
    }
}
