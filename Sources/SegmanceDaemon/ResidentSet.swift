import CLinuxSystem
import Glibc

/// Gives back the memory start-up touched once the daemon is ready.
///
/// Start-up runs code that never runs again: the Swift runtime's and Foundation's
/// initialisation, protocol-conformance scans across the whole binary, argument parsing,
/// TOML, opening the library. The kernel maps file pages around every fault (fault-around,
/// 64 KB), and the engine's `mlockall(MCL_ONFAULT)` pins whatever was mapped, so a static
/// binary ends start-up with 10+ MB of its code resident. `trim()` unlocks and drops the
/// clean, read-only file pages of the program and its shared libraries (they stay in the
/// page cache) — never relocated ones — then locks again on fault: what keeps running — the render loop, the
/// control loop, the display — faults back in once (a minor fault, before any audio
/// plays) and stays locked; start-up code stays out.
public enum ResidentSet {
    /// One mapping of /proc/self/maps.
    struct Mapping: Equatable {
        var start: UInt
        var end: UInt
        var permissions: String
        var path: String
    }

    /// The mappings worth trimming in a /proc/self/smaps text: read-only private mappings
    /// (code and constants) of the program and of shared libraries (`*.so*`) that hold no
    /// anonymous pages. A read-only mapping with anonymous pages is relocated data
    /// (RELRO: written by the dynamic linker, then made read-only); dropping it would throw
    /// the relocations away. Data, the heap, stacks, shared memory and any other file (the
    /// library's PCM, which the playback window manages) are left alone.
    static func trimmable(_ smaps: String, program: String) -> [Mapping] {
        var found: [Mapping] = []
        var candidate: Mapping?
        func settle() {
            if let c = candidate { found.append(c) }
            candidate = nil
        }
        for line in smaps.split(separator: "\n") {
            let fields = line.split(separator: " ", maxSplits: 5, omittingEmptySubsequences: true)
            if let first = fields.first, let dash = first.firstIndex(of: "-"), fields.count >= 5,
               let start = UInt(first[..<dash], radix: 16), let end = UInt(first[first.index(after: dash)...], radix: 16) {
                settle()
                let permissions = String(fields[1])
                // smaps pads the path with spaces; the last field keeps them (a path may hold spaces too).
                let path = fields.count == 6 ? String(fields[5].drop { $0 == " " }) : ""
                let readOnlyPrivate = permissions.hasPrefix("r") && permissions.dropFirst().first == "-"
                    && permissions.hasSuffix("p")
                let ours = path == program || path.hasPrefix("/") && (path.hasSuffix(".so") || path.contains(".so."))
                if readOnlyPrivate && ours { candidate = Mapping(start: start, end: end, permissions: permissions, path: path) }
            } else if fields.first == "Anonymous:", fields.count >= 2, fields[1] != "0" {
                candidate = nil
            }
        }
        settle()
        return found
    }

    /// Drops start-up's pages as described above; returns how many bytes of mappings
    /// were trimmed. `lockOnFault` re-arms `mlockall(MCL_CURRENT | MCL_FUTURE |
    /// MCL_ONFAULT)` afterwards (when the engine locked memory).
    @discardableResult
    public static func trim(lockOnFault: Bool) -> Int {
        guard let smaps = readProcFile("/proc/self/smaps"), let program = executablePath() else { return 0 }
        var bytes = 0
        for m in trimmable(smaps, program: program) {
            guard let address = UnsafeMutableRawPointer(bitPattern: m.start) else { continue }
            let length = Int(m.end - m.start)
            munlock(address, length)
            if madvise(address, length, MADV_DONTNEED) == 0 { bytes += length }
        }
        if lockOnFault { _ = mlockall(Int32(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)) }
        return bytes
    }

    static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: 4096)
        let n = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard n > 0 else { return nil }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func readProcFile(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
