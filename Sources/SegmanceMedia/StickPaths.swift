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
