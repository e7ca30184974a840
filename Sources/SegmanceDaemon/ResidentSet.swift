import Glibc
import LinuxSystem

/// Gives back the memory start-up touched once the daemon is ready.
///
/// Start-up runs code that never runs again: the Swift runtime's and Foundation's
/// initialisation, protocol-conformance scans across the whole binary, argument parsing,
/// TOML, opening the library. The kernel maps file pages around every fault (fault-around,
/// 64 KB), and the engine's `mlockall(MCL_ONFAULT)` pins whatever was mapped, so a static
/// binary ends start-up with 10+ MB of its code resident. `trim()` unlocks and drops the
/// clean, read-only file pages of the program and its shared libraries (they stay in the
/// page cache) — never relocated ones — then locks again on fault: what keeps running — the
/// render loop, the control loop, the display — faults back in once (a minor fault, before
/// any audio plays) and stays locked; start-up code stays out. Once threads run, a trim
/// keeps what a snapshot (`Mappings.snapshot()`, the page table's present bits) held and
/// drops only what was mapped since (`trim(keeping:lockOnFault:)`): the code a running
/// thread uses is never dropped under it.
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
    ///
    /// Scanned as bytes: smaps has some 25 lines per mapping (30,000 for the bench's
    /// 1,200 mappings), and splitting each line into Substrings took 30 ms of start-up.
    static func trimmable(_ smaps: String, program: String) -> [Mapping] {
        var text = smaps
        let programBytes = Array(program.utf8)
        return text.withUTF8 { bytes in
            var found: [Mapping] = []
            var candidate: Mapping?
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                if let header = SmapsLine(bytes, start..<end).header() {
                    if let c = candidate { found.append(c) }
                    candidate = nil
                    let p = header.permissions
                    let readOnlyPrivate = p.count == 4 && bytes[p.lowerBound] == UInt8(ascii: "r")
                        && bytes[p.lowerBound + 1] == UInt8(ascii: "-") && bytes[p.upperBound - 1] == UInt8(ascii: "p")
                    if readOnlyPrivate && SmapsLine(bytes, header.path).isOurs(program: programBytes) {
                        candidate = Mapping(start: header.start, end: header.end,
                                            permissions: String(decoding: bytes[p], as: UTF8.self),
                                            path: String(decoding: bytes[header.path], as: UTF8.self))
                    }
                } else if SmapsLine(bytes, start..<end).isNonZero(field: "Anonymous:") {
                    candidate = nil
                }
                start = end + 1
            }
            if let c = candidate { found.append(c) }
            return found
        }
    }

    /// One line of /proc/self/smaps, read in place.
    struct SmapsLine {
        let bytes: UnsafeBufferPointer<UInt8>
        let range: Range<Int>

        init(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
            self.bytes = bytes
            self.range = range
        }

        /// `START-END PERMS OFFSET DEV INODE   PATH`: the addresses, and where the permissions
        /// and the path (leading spaces dropped; empty when there is none) are. Nil for a
        /// line of another kind (`Rss:   4 kB`).
        func header() -> (start: UInt, end: UInt, permissions: Range<Int>, path: Range<Int>)? {
            var i = range.lowerBound
            guard let start = hex(&i), i < range.upperBound, bytes[i] == UInt8(ascii: "-") else { return nil }
            i += 1
            guard let end = hex(&i), i < range.upperBound, bytes[i] == UInt8(ascii: " ") else { return nil }
            var fields: [Range<Int>] = []
            while fields.count < 4 {
                while i < range.upperBound && bytes[i] == UInt8(ascii: " ") { i += 1 }
                let from = i
                while i < range.upperBound && bytes[i] != UInt8(ascii: " ") { i += 1 }
                guard i > from else { return nil }
                fields.append(from..<i)
            }
            // The rest after the inode's single space, its padding dropped.
            if i < range.upperBound { i += 1 }
            while i < range.upperBound && bytes[i] == UInt8(ascii: " ") { i += 1 }
            return (start, end, fields[0], i..<range.upperBound)
        }

        /// Whether the path is the program or a shared library's (`/…*.so`, `/…*.so.*`).
        func isOurs(program: [UInt8]) -> Bool {
            if range.count == program.count && bytes[range].elementsEqual(program) { return true }
            guard !range.isEmpty, bytes[range.lowerBound] == UInt8(ascii: "/") else { return false }
            let so = Array(".so".utf8)
            var i = range.lowerBound
            while i + so.count <= range.upperBound {
                if bytes[i..<(i + so.count)].elementsEqual(so)
                    && (i + so.count == range.upperBound || bytes[i + so.count] == UInt8(ascii: ".")) {
                    return true
                }
                i += 1
            }
            return false
        }

        /// Whether the line is `field` followed by a value other than 0.
        func isNonZero(field: StaticString) -> Bool {
            let name = UnsafeBufferPointer(start: field.utf8Start, count: field.utf8CodeUnitCount)
            let head = range.lowerBound..<(range.lowerBound + name.count)
            guard range.count > name.count, bytes[head].elementsEqual(name) else { return false }
            var i = range.lowerBound + name.count
            while i < range.upperBound && bytes[i] == UInt8(ascii: " ") { i += 1 }
            let from = i
            while i < range.upperBound && bytes[i] != UInt8(ascii: " ") { i += 1 }
            return !(i == from + 1 && bytes[from] == UInt8(ascii: "0")) && i > from
        }

        private func hex(_ i: inout Int) -> UInt? {
            var value: UInt = 0
            let from = i
            while i < range.upperBound, let digit = Self.hexDigit(bytes[i]) {
                value = value << 4 | UInt(digit)
                i += 1
            }
            return i > from ? value : nil
        }

        private static func hexDigit(_ byte: UInt8) -> UInt8? {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
            default: nil
            }
        }
    }

    /// Drops start-up's pages as described above; returns how many bytes of mappings
    /// were trimmed, and the mappings (for a snapshot that runs no parsing code).
    /// `lockOnFault` re-arms `mlockall(MCL_CURRENT | MCL_FUTURE | MCL_ONFAULT)` afterwards
    /// (when the engine locked memory).
    @discardableResult
    public static func trim(lockOnFault: Bool) -> (bytes: Int, mappings: Mappings) {
        // Parsed before anything is dropped: the parsing code goes with the rest.
        let mappings = Mappings.now()
        var bytes = 0
        for m in mappings.ranges {
            bytes += drop(m)
        }
        if lockOnFault { try? MemoryLock.lockAll(future: true, onFault: true) }
        return (bytes, mappings)
    }

    /// The trimmable mappings of the process at one moment.
    public struct Mappings: Sendable {
        var ranges: [Range<UInt>]

        static func now() -> Mappings {
            guard let smaps = readProcFile("/proc/self/smaps"), let program = executablePath() else {
                return Mappings(ranges: [])
            }
            return Mappings(ranges: trimmable(smaps, program: program).map { $0.start..<$0.end })
        }

        /// Which of their pages are present now (nil when /proc cannot say). Runs nothing
        /// but reads of /proc/self/pagemap, so the snapshot holds no code of its own making.
        public func snapshot() -> Snapshot? {
            guard let pagemap = try? PageMap() else { return nil }
            var snapshot = Snapshot()
            for range in ranges {
                guard let bits = pagemap.present(range) else { return nil }
                snapshot.mappings.append((range, bits))
            }
            return snapshot
        }
    }

    /// Which pages of the trimmable mappings were mapped in this process (present in its
    /// page table, from /proc/self/pagemap) at one moment, for `trim(keeping:lockOnFault:)`.
    public struct Snapshot: Sendable {
        /// Per trimmable mapping: its address range and one bit per page, set when present.
        var mappings: [(range: Range<UInt>, bits: [UInt64])] = []

        /// Whether the page at `address` was present (false outside every mapping seen: a
        /// mapping split or made since is looked up by address, not by where it starts).
        func contains(_ address: UInt, pageSize: UInt) -> Bool {
            guard let m = mappings.first(where: { $0.range.contains(address) }) else { return false }
            let page = Int((address - m.range.lowerBound) / pageSize)
            return m.bits[page / 64] & (1 << UInt64(page % 64)) != 0
        }
    }

    /// Drops only the pages of the trimmable mappings that became present since `snapshot`
    /// (a mapping new since then, whole): what ran once in between — a thread's and a
    /// device's start, an import's reading — goes, and every page a thread kept using
    /// (the render thread's code, warmed up before the snapshot) stays mapped, so no thread
    /// faults its own code in again. Returns the bytes dropped and what stays present: the
    /// next trim's snapshot (taken from the same reading, so this trim's own code is not in it).
    @discardableResult
    public static func trim(keeping snapshot: Snapshot, lockOnFault: Bool) -> (bytes: Int, kept: Snapshot) {
        let mappings = Mappings.now()
        guard let pagemap = try? PageMap() else { return (0, snapshot) }
        let page = PageMap.pageSize
        var readings: [(range: Range<UInt>, bits: [UInt64])] = []
        for m in mappings.ranges {
            if let now = pagemap.present(m) { readings.append((m, now)) }
        }
        var bytes = 0
        var kept = Snapshot()
        for (m, now) in readings {
            let pages = Int((m.upperBound - m.lowerBound) / page)
            let runs = newRuns(now: now, pages: pages) {
                snapshot.contains(m.lowerBound + UInt($0) * page, pageSize: page)
            }
            var left = now
            for run in runs {
                let start = m.lowerBound + UInt(run.lowerBound) * page
                bytes += drop(start..<(m.lowerBound + UInt(run.upperBound) * page))
                for p in run { left[p / 64] &= ~(UInt64(1) << UInt64(p % 64)) }
            }
            kept.mappings.append((m, left))
        }
        if lockOnFault && bytes > 0 { try? MemoryLock.lockAll(future: true, onFault: true) }
        return (bytes, kept)
    }

    /// The runs of pages set in `now` for which `kept` is false.
    static func newRuns(now: [UInt64], pages: Int, kept: (Int) -> Bool) -> [Range<Int>] {
        var runs: [Range<Int>] = []
        var start: Int?
        for p in 0..<pages {
            let present = now[p / 64] & (UInt64(1) << UInt64(p % 64)) != 0
            if present && !kept(p) {
                if start == nil { start = p }
            } else if let s = start {
                runs.append(s..<p)
                start = nil
            }
        }
        if let s = start { runs.append(s..<pages) }
        return runs
    }

    /// Unlocks and drops the pages of `range` (page-aligned); returns its length when dropped.
    private static func drop(_ range: Range<UInt>) -> Int {
        guard let address = UnsafeMutableRawPointer(bitPattern: range.lowerBound) else { return 0 }
        let length = Int(range.upperBound - range.lowerBound)
        return MemoryLock.drop(UnsafeMutableRawBufferPointer(start: address, count: length)) ? length : 0
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
