import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The fuzzer process's own temporary folder, made once under `$TMPDIR` (run.sh points it
/// into the build folder and removes it after each target), emptied after every input.
public enum FuzzFolder {
    /// The folder's path, made on first use.
    public static let path: String = {
        let base = ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp"
        var template = Array("\(base)/segmance-fuzz-XXXXXX".utf8CString)
        // mkdtemp fills in the template in place: its path is read while the array is alive.
        let made = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!).map { String(cString: $0) } }
        guard let made else { preconditionFailure("mkdtemp in \(base): \(String(cString: strerror(errno)))") }
        return made
    }()

    /// Writes `bytes` to `name` in the folder; its path.
    public static func write<Bytes: Collection<UInt8>>(_ bytes: Bytes, to name: String) -> String {
        let file = path + "/" + name
        let fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        precondition(fd >= 0, "open \(file): \(String(cString: strerror(errno)))")
        defer { close(fd) }
        let data = Array(bytes)
        var offset = 0
        while offset < data.count {
            let n = data[offset...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            precondition(n > 0 || errno == EINTR, "write \(file): \(String(cString: strerror(errno)))")
            if n > 0 { offset += n }
        }
        return file
    }

    /// Removes everything in the folder (links are removed, never followed; names need
    /// not be UTF-8, so paths are handled as bytes).
    public static func empty() {
        removeContents(of: Array(path.utf8))
    }

    private static func removeContents(of folder: [UInt8]) {
        guard let directory = opendir(cString(folder)) else { return }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix(while: { $0 != 0 })) }
            if name == [0x2E] || name == [0x2E, 0x2E] { continue }
            names.append(name)
        }
        closedir(directory)
        for name in names { remove(folder + [0x2F] + name) }
    }

    private static func remove(_ path: [UInt8]) {
        let cPath = cString(path)
        var info = stat()
        guard lstat(cPath, &info) == 0 else { return }
        if info.st_mode & S_IFMT == S_IFDIR {
            chmod(cPath, 0o755)
            removeContents(of: path)
            rmdir(cPath)
        } else {
            unlink(cPath)
        }
    }

    private static func cString(_ bytes: [UInt8]) -> [CChar] {
        bytes.map { CChar(bitPattern: $0) } + [0]
    }
}
