import LinuxSystem
import Foundation

/// Path checks for an untrusted stick: everything must resolve inside a root.
enum StickPaths {
    /// The canonical absolute path (symlinks resolved), or nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// True when canonical `path` is `root` or below it.
    static func isInside(_ path: String, root: String) -> Bool {
        path == root || path.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    /// `path` relative to canonical `root` (call only when `isInside`).
    static func relative(_ path: String, to root: String) -> String {
        if path == root { return "" }
        return String(path.dropFirst(root.hasSuffix("/") ? root.count : root.count + 1))
    }

    /// "dir/name", or "name" when dir is "".
    static func join(_ dir: String, _ name: String) -> String {
        dir.isEmpty ? name : dir + "/" + name
    }

    enum Kind { case directory, file, other }

    /// The kind of what `path` (already resolved) is.
    static func kind(_ path: String) -> Kind {
        var info = stat()
        guard stat(path, &info) == 0 else { return .other }
        switch info.st_mode & S_IFMT {
        case S_IFDIR: return .directory
        case S_IFREG: return .file
        default: return .other
        }
    }

    /// The size in bytes of the file at `path` (0 when it cannot be read).
    static func size(_ path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    /// True when `path` itself is a symbolic link.
    static func isLink(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// The one relative path under `folder` that names `file` when capitals are ignored
    /// ("TRACK 1.wav" for "Track 1.wav"), component by component; nil when none or more
    /// than one does.
    static func matchIgnoringCase(_ file: String, in folder: String) -> String? {
        var path = ""
        for component in file.split(separator: "/", omittingEmptySubsequences: true) {
            let here = component == "." ? "" : String(component)
            if here.isEmpty { continue }
            let dir = folder + (path.isEmpty ? "" : "/" + path)
            let exact = dir + "/" + here
            var info = stat()
            let name: String
            if lstat(exact, &info) == 0 {
                name = here
            } else {
                let wanted = here.lowercased()
                let matches = names(in: dir).filter { $0.lowercased() == wanted }
                guard matches.count == 1 else { return nil }
                name = matches[0]
            }
            path = join(path, name)
        }
        return path.isEmpty || path == file ? nil : path
    }

    /// The names in `directory` (none when it cannot be read).
    static func names(in directory: String) -> [String] {
        (try? Directory(directory).names()) ?? []
    }

    /// Why a manifest's `file` value is refused, or nil when it is an acceptable
    /// relative path (no absolute path, no "..", no "~", no empty name).
    static func manifestPathProblem(_ file: String) -> String? {
        if file.isEmpty { return "'file' is empty" }
        if file.hasPrefix("/") || file.hasPrefix("\\") || file.hasPrefix("~")
            || (file.count > 1 && file.dropFirst().first == ":") {
            return "'file' = \"\(file.clipped)\" is an absolute path; paths stay inside the routine folder"
        }
        let components = file.split(whereSeparator: { $0 == "/" || $0 == "\\" })
        if components.contains("..") {
            return "'file' = \"\(file.clipped)\" leaves the routine folder; paths stay inside it"
        }
        return nil
    }
}
