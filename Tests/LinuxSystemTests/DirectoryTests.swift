import Glibc
import LinuxSystem
import Testing

@Suite struct DirectoryTests {
    @Test func itListsARealDirectoryWithoutDotEntries() throws {
        let folder = ScratchFolder()
        folder.touch("b.wav")
        folder.touch("a.wav")
        #expect(mkdir(folder.path + "/Part 2", 0o755) == 0)
        #expect(try Directory(folder.path).names().sorted() == ["Part 2", "a.wav", "b.wav"])
        var kinds: [String: UInt8] = [:]
        try Directory(folder.path).forEachEntry { entry in
            kinds[entry.name ?? "?"] = entry.kind
            return true
        }
        #expect(kinds == ["Part 2": UInt8(DT_DIR), "a.wav": UInt8(DT_REG), "b.wav": UInt8(DT_REG)])
    }

    @Test func aMissingDirectoryThrowsNamingIt() {
        let folder = ScratchFolder()
        let missing = folder.path + "/gone"
        #expect(throws: SystemError("opendir", path: missing, code: ENOENT)) { _ = try Directory(missing).names() }
        do {
            _ = try Directory(missing).names()
        } catch {
            #expect(error.description == "opendir(\(missing)): No such file or directory")
        }
    }

    @Test func theBodyStopsTheListing() throws {
        let folder = ScratchFolder()
        for name in ["1", "2", "3", "4"] { folder.touch(name) }
        var seen = 0
        try Directory(folder.path).forEachEntry { _ in
            seen += 1
            return seen < 2
        }
        #expect(seen == 2)
    }

    @Test func numberedNamesSortByTheirNumber() {
        let folder = ScratchFolder()
        for name in ["event10", "event2", "event1", "mouse0", "eventX"] { folder.touch(name) }
        #expect(Directory(folder.path).numbered(prefix: "event").map(\.name) == ["event1", "event2", "event10"])
        #expect(Directory(folder.path + "/none").numbered(prefix: "event").isEmpty)
    }
}
