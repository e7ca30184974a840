import Glibc
import LinuxSystem
import Testing

@Suite(.tags(.integration)) struct DirectoryTests {
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

    @Test func makeUniqueCreatesAFreshPrivateDirectoryEachTime() throws {
        let folder = ScratchFolder()
        let first = try Directory.makeUnique(prefix: folder.path + "/library-")
        let second = try Directory.makeUnique(prefix: folder.path + "/library-")
        #expect(first.path != second.path)
        for made in [first, second] {
            #expect(made.path.hasPrefix(folder.path + "/library-"))
            #expect(made.path.count == (folder.path + "/library-").count + 6)
            var info = stat()
            #expect(stat(made.path, &info) == 0)
            #expect(info.st_mode & S_IFMT == S_IFDIR)
            #expect(info.st_mode & 0o777 == 0o700)
            #expect(try made.names().isEmpty)
        }
    }

    @Test func makeUniqueInAMissingFolderThrowsNamingIt() {
        let folder = ScratchFolder()
        #expect(throws: SystemError("mkdtemp", path: folder.path + "/gone/x-XXXXXX", code: ENOENT)) {
            _ = try Directory.makeUnique(prefix: folder.path + "/gone/x-")
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
