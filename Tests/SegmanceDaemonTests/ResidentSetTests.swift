import Glibc
import LinuxSystem
import Testing
@testable import SegmanceDaemon

@Suite(.tags(.integration)) struct ResidentSetTests {
    /// Mappings as /proc/self/smaps lists them (only the lines that matter).
    static func mapping(_ header: String, anonymous: Int = 0) -> String {
        "\(header)\nRss:                 100 kB\nAnonymous:           \(anonymous) kB\n"
    }

    static let smaps = [
        mapping("55f4fb3f5000-55f4fcc7a000 r-xp 00000000 fe:01 1234                       /usr/bin/segmance"),
        mapping("55f4fcc7a000-55f4fcd23000 r--p 01885000 fe:01 1234                       /usr/bin/segmance", anonymous: 672),
        mapping("55f4fcd23000-55f4ff140000 rw-p 0192e000 fe:01 1234                       /usr/bin/segmance", anonymous: 1644),
        mapping("55f500000000-55f500100000 rw-p 00000000 00:00 0                          [heap]", anonymous: 500),
        mapping("7fad20000000-7fad20400000 r--p 00000000 fe:01 99                         /var/lib/segmance/media/ab12.pcm"),
        mapping("7fad25000000-7fad25100000 r-xp 00028000 fe:01 77                         /usr/lib/x86_64-linux-gnu/libc.so.6"),
        mapping("7fad25100000-7fad25110000 r--p 00000000 fe:01 78                         /usr/lib/x86_64-linux-gnu/libasound.so.2.0.0"),
        mapping("7fad25110000-7fad25112000 r--p 00010000 fe:01 78                         /usr/lib/x86_64-linux-gnu/libasound.so.2.0.0", anonymous: 8),
        mapping("7fad25200000-7fad25210000 rw-p 00001000 fe:01 78                         /usr/lib/x86_64-linux-gnu/libasound.so.2.0.0", anonymous: 4),
        mapping("7fad25626000-7fad25627000 rw-s 00000000 00:05 5                          /dev/shm/jack-0-0"),
        mapping("7fad25700000-7fad25710000 r--s 00000000 00:05 6                          /usr/lib/x86_64-linux-gnu/libfoo.so"),
        mapping("7fad25800000-7fad25801000 r-xp 00000000 00:00 0 "),
        mapping("7ffd00000000-7ffd00021000 rw-p 00000000 00:00 0                          [stack]", anonymous: 132),
    ].joined()

    @Test func onlyCleanReadOnlyMappingsOfTheProgramAndItsLibrariesAreTrimmed() {
        let found = ResidentSet.trimmable(Self.smaps, program: "/usr/bin/segmance")
        // Not the relocated (RELRO) ones with anonymous pages, not data, the PCM, shared memory.
        #expect(found.map(\.path) == ["/usr/bin/segmance", "/usr/lib/x86_64-linux-gnu/libc.so.6",
                                      "/usr/lib/x86_64-linux-gnu/libasound.so.2.0.0"])
        #expect(found.first == ResidentSet.Mapping(start: 0x55f4fb3f5000, end: 0x55f4fcc7a000, permissions: "r-xp",
                                                   path: "/usr/bin/segmance"))
        #expect(found.last?.start == 0x7fad25100000)
    }

    /// A path is the rest of the header line, spaces and all; `.so` counts only as the end
    /// of a name or before a version (`.so.2`), not inside one (`.sox`).
    @Test func pathsKeepTheirSpacesAndOnlySharedLibrariesCount() {
        let smaps = Self.mapping("7fad26000000-7fad26001000 r-xp 00000000 fe:01 80   /opt/my lib/libx.so.1 (deleted)")
            + Self.mapping("7fad26001000-7fad26002000 r-xp 00000000 fe:01 81   /opt/tools/file.sox")
            + Self.mapping("7fad26002000-7fad26003000 r--p 00000000 fe:01 82   /opt/tools/libz.so", anonymous: 0)
        let found = ResidentSet.trimmable(smaps, program: "/usr/bin/segmance")
        #expect(found.map(\.path) == ["/opt/my lib/libx.so.1 (deleted)", "/opt/tools/libz.so"])
        #expect(found.map(\.start) == [0x7fad26000000, 0x7fad26002000])
    }

    @Test func thisProcessHasTrimmableMappings() throws {
        let smaps = try #require(ResidentSet.readProcFile("/proc/self/smaps"))
        let program = try #require(ResidentSet.executablePath())
        #expect(ResidentSet.trimmable(smaps, program: program).contains { $0.path == program })
    }

    /// Pages present now (bits), the pages kept (present before): the runs dropped.
    @Test(arguments: [
        ([0, 1, 2, 3], [Int](), 6, [0..<4]),
        ([0, 1, 2, 3], [1, 2], 6, [0..<1, 3..<4]),
        ([1, 2, 5], [1, 2, 5], 6, [Range<Int>]()),
        ([4, 5], [0], 6, [4..<6]),
        ([63, 64, 65], [64], 70, [63..<64, 65..<66]),
        ([Int](), [0, 1], 6, [Range<Int>]()),
    ])
    func theRunsDroppedAreThePagesPresentNowAndNotBefore(_ now: [Int], _ kept: [Int], _ pages: Int, _ runs: [Range<Int>]) {
        var bits = [UInt64](repeating: 0, count: (pages + 63) / 64)
        for p in now { bits[p / 64] |= 1 << UInt64(p % 64) }
        #expect(ResidentSet.newRuns(now: bits, pages: pages) { kept.contains($0) } == runs)
    }

    /// A read-only private mapping of a file named like a shared library stands in for
    /// code: the pages touched before the snapshot stay mapped through the trim, the ones
    /// touched after it are dropped (pagemap says so), and the trim's result keeps the former.
    @Test func aTrimKeepingASnapshotDropsOnlyThePagesMappedSinceIt() throws {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let path = "/tmp/segmance-resident-\(getpid()).so"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        try #require(fd >= 0)
        defer { close(fd); unlink(path) }
        var bytes = [UInt8](repeating: 7, count: page * 32)
        #expect(write(fd, &bytes, bytes.count) == bytes.count)
        let base = try #require(mmap(nil, page * 32, PROT_READ, MAP_PRIVATE, fd, 0))
        try #require(base != MAP_FAILED)
        defer { munmap(base, page * 32) }
        // Nothing of it mapped to start with.
        madvise(base, page * 32, MADV_DONTNEED)
        let memory = base.assumingMemoryBound(to: UInt8.self)
        func touch(_ pages: Range<Int>) -> Int { pages.reduce(0) { $0 + Int(memory[$1 * page]) } }
        let start = UInt(bitPattern: base)
        func present() throws -> [Bool] {
            let bits = try #require(PageMap().present(start..<(start + UInt(page * 32))))
            return (0..<32).map { bits[$0 / 64] & (1 << UInt64($0 % 64)) != 0 }
        }

        #expect(touch(0..<8) == 7 * 8)
        let mappings = ResidentSet.Mappings.now()
        #expect(mappings.ranges.contains { $0.lowerBound == start }, "the stand-in mapping is not trimmable")
        let before = try #require(mappings.snapshot())
        let kept = try present()
        #expect(kept[0..<8].allSatisfy { $0 })
        #expect(touch(16..<24) == 7 * 8)
        let after = try present()
        #expect(after[16..<24].allSatisfy { $0 })

        let trim = ResidentSet.trim(keeping: before, lockOnFault: false)
        let now = try present()
        #expect(now[0..<8].allSatisfy { $0 }, "a page mapped before the snapshot was dropped")
        #expect(now[16..<24].allSatisfy { !$0 }, "a page mapped after the snapshot stayed")
        #expect(trim.bytes >= 8 * page)
        let stays = (0..<32).map { trim.kept.contains(start + UInt($0 * page), pageSize: UInt(page)) }
        #expect(stays == now, "the trim's snapshot is not what stayed mapped")
    }
}
