import LinuxSystem
import SegmanceCore
import SegmanceMedia
#if canImport(Glibc)
import Glibc
#endif

/// Why a routine was not saved to a stick (or a folder): what the LCD and the command say.
public enum ExportFailure: Error, Equatable, CustomStringConvertible {
    /// Not enough room for the routine's audio and manifest.
    case full(String)
    /// The stick (or folder) cannot be written: its write-protect switch, a read-only mount.
    case writeProtected(String)
    /// The stick went away during the write.
    case gone(String)
    /// Anything else, with its detail.
    case failed(String)

    public var description: String {
        switch self {
        case .full(let detail): "not enough room: \(detail)"
        case .writeProtected(let detail): "cannot write there (write-protected or read-only): \(detail)"
        case .gone(let detail): "the stick went away during the write: \(detail)"
        case .failed(let detail): detail
        }
    }

    /// Two lines of at most 16 characters for the LCD.
    public var lcd: (String, String) {
        switch self {
        case .full: ("Stick full:", "not saved")
        case .writeProtected: ("Stick locked:", "not saved")
        case .gone: ("Stick pulled:", "not saved")
        case .failed: ("Save failed:", "see the log")
        }
    }
}

/// Writes a library routine as a routine folder a box imports back to the same routine:
/// `ROOT/Segmance/TITLE/routine.toml` and one WAV per audio source the parts use (whole,
/// so the parts' cuts keep their `from`/`to`).
///
/// Nothing that exists is changed: a title whose folder exists gets "TITLE 2", "TITLE 3", ….
/// The folder is written under a dot name (`.TITLE.saving`, skipped by the stick scanner as
/// debris), every file fsynced, the folder fsynced, renamed into place and its parent
/// fsynced; on any failure the dot folder is removed as far as the stick still allows.
public struct RoutineExporter {
    public let library: Library
    /// The folder routines are written into, below the root.
    public static let folder = "Segmance"

    public init(library: Library) { self.library = library }

    /// Writes the routine titled `title` under `root`; returns the folder written, relative
    /// to `root` ("Segmance/Salsa").
    @discardableResult
    public func export(titled title: String, into root: String) throws(ExportFailure) -> String {
        let stored: StoredRoutine?
        do {
            stored = try library.routine(titled: title)
        } catch {
            throw .failed("\(error)")
        }
        guard let stored else { throw .failed("no routine titled \"\(title)\" in \(library.directory)") }
        return try export(stored.routine, into: root)
    }

    /// Writes `routine` (its audio named by media hash in the library) under `root`.
    @discardableResult
    public func export(_ routine: Routine, into root: String) throws(ExportFailure) -> String {
        var sources: [(hash: String, frames: Int64, name: String)] = []
        var files: [AudioReference: String] = [:]
        var taken: Set<String> = ["routine.toml"]
        for part in routine.parts where files[part.audio] == nil {
            let frames: Int64?
            do {
                frames = try library.mediaFrames(part.audio.id)
            } catch {
                throw .failed("\(error)")
            }
            guard let frames else { throw .failed("the library has no audio \(part.audio.id)") }
            let name = Self.unique(Self.safeName(part.title, fallback: "part") + ".wav", in: &taken)
            files[part.audio] = name
            sources.append((part.audio.id, frames, name))
        }
        let manifest = Array(ManifestWriter.text(routine, files: files, rate: library.sampleRate).utf8)
        let needed = sources.reduce(Int64(manifest.count) + 64 * 1024) { $0 + WAVExport.size(frames: $1.frames) }

        let base = root + "/" + Self.folder
        try check(root)
        if mkdir(base, 0o755) != 0 && errno != EEXIST { throw classify(root, "mkdir", base, errno) }
        let existing = Set(((try? Directory(base).names()) ?? []).map { $0.lowercased() })
        var name = Self.safeName(routine.title, fallback: "Routine")
        var n = 2
        let stem = name
        // FAT and exFAT ignore capitals: "salsa" would be "Salsa".
        while existing.contains(name.lowercased()) {
            name = "\(stem) \(n)"
            n += 1
        }
        if let free = Self.freeBytes(root), free < needed {
            throw .full("\(needed / 1_048_576 + 1) MB needed, \(free / 1_048_576) MB free")
        }
        let temporary = base + "/." + name + ".saving"
        let final = base + "/" + name
        do throws(ExportFailure) {
            guard mkdir(temporary, 0o755) == 0 else { throw classify(root, "mkdir", temporary, errno) }
            for source in sources {
                let path = temporary + "/" + source.name
                do {
                    let pcm = try library.store.map(source.hash, frames: source.frames)
                    try WAVExport.write(pcm.base, frames: source.frames, rate: library.sampleRate, to: path)
                } catch {
                    throw classify(root, "write", path, errno, detail: "\(error)")
                }
            }
            try write(manifest, to: temporary + "/routine.toml", root: root)
            try sync(folder: temporary, root: root)
            guard rename(temporary, final) == 0 else { throw classify(root, "rename", final, errno) }
            try sync(folder: base, root: root)
            try sync(folder: root, root: root)
        } catch {
            Self.removeTree(temporary)
            throw error
        }
        return Self.folder + "/" + name
    }

    /// A name for a file or folder on FAT, exFAT and the rest: no `/ \ : * ? " < > |`, no
    /// control characters, no leading dot, no trailing dot or space, at most 60 characters.
    public static func safeName(_ text: String, fallback: String) -> String {
        let forbidden = Set("/\\:*?\"<>|".unicodeScalars)
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            scalars.append(forbidden.contains(scalar) || scalar.value < 0x20 || scalar.value == 0x7F ? "_" : scalar)
        }
        var name = String(String(scalars).prefix(60))
        while name.hasPrefix(".") || name.hasPrefix(" ") { name.removeFirst() }
        while name.hasSuffix(".") || name.hasSuffix(" ") { name.removeLast() }
        return name.isEmpty ? fallback : name
    }

    private static func unique(_ name: String, in taken: inout Set<String>) -> String {
        var candidate = name
        var n = 2
        let dot = name.lastIndex(of: ".") ?? name.endIndex
        while taken.contains(candidate.lowercased()) {
            candidate = "\(name[..<dot]) \(n)\(name[dot...])"
            n += 1
        }
        taken.insert(candidate.lowercased())
        return candidate
    }

    private func check(_ root: String) throws(ExportFailure) {
        var info = stat()
        guard stat(root, &info) == 0 else { throw classify(root, "stat", root, errno) }
        guard info.st_mode & S_IFMT == S_IFDIR else { throw .failed("\(root) is not a folder") }
        var fs = statvfs()
        if statvfs(root, &fs) == 0, fs.f_flag & UInt(ST_RDONLY) != 0 {
            throw .writeProtected("\(root) is mounted read-only")
        }
    }

    private func write(_ bytes: [UInt8], to path: String, root: String) throws(ExportFailure) {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw classify(root, "open", path, errno) }
        defer { close(fd) }
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, $0.count - done) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { throw classify(root, "write", path, errno) }
            done += n
        }
        guard fsync(fd) == 0 else { throw classify(root, "fsync", path, errno) }
    }

    private func sync(folder: String, root: String) throws(ExportFailure) {
        do {
            try FileSync.folder(folder)
        } catch {
            throw classify(root, error.call, error.path, error.code)
        }
    }

    /// What a failed call means: the stick gone, full, write-protected, or something else.
    private func classify(_ root: String, _ call: String, _ path: String, _ code: Int32,
                          detail: String? = nil) -> ExportFailure {
        let text = detail ?? SystemError(call, path: path, code: code).description
        var info = stat()
        if stat(root, &info) != 0 || StickPresence.isMediumError(code) { return .gone(text) }
        if code == ENOSPC || code == EFBIG || code == EDQUOT { return .full(text) }
        if code == EROFS || code == EACCES || code == EPERM { return .writeProtected(text) }
        if let free = Self.freeBytes(root), free < 64 * 1024 { return .full(text) }
        return .failed(text)
    }

    private static func freeBytes(_ root: String) -> Int64? {
        var fs = statvfs()
        guard statvfs(root, &fs) == 0 else { return nil }
        return Int64(fs.f_bavail) * Int64(fs.f_frsize)
    }

    /// Removes a folder the export made and the files in it (it holds no subfolders).
    static func removeTree(_ path: String) {
        for name in (try? Directory(path).names()) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}
