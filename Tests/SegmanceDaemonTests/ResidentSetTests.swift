import Testing
@testable import SegmanceDaemon

@Suite struct ResidentSetTests {
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

    @Test func thisProcessHasTrimmableMappings() throws {
        let smaps = try #require(ResidentSet.readProcFile("/proc/self/smaps"))
        let program = try #require(ResidentSet.executablePath())
        #expect(ResidentSet.trimmable(smaps, program: program).contains { $0.path == program })
    }
}
