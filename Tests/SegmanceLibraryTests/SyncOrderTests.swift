import Foundation
import SegmanceTestSupport
import Testing

/// The order of the import's durable writes, seen from outside the process: the real
/// `segmance import` runs under strace (`-f`: its helpers too; `-y`: each descriptor with its
/// path), and the trace must show every file fsynced before it is renamed to its name, and
/// the media folder fsynced after the last name is made there. A rename the disk receives
/// before the file's data would, after a power cut, leave a name with missing content;
/// on the host nothing else shows it.
@Suite(.tags(.integration)) struct SyncOrderTests {
    let temp = TempDirs()

    /// One call of the trace: the syscall, its arguments as printed, whether it returned 0.
    struct Call {
        var name: String
        var arguments: String
        var succeeded: Bool
    }

    @Test func everyFileIsFsyncedBeforeItsRenameAndTheFolderAfter() throws {
        try #require(FileManager.default.isExecutableFile(atPath: SegmanceBinary.path),
                     "build the command first (swift build): \(SegmanceBinary.path)")
        let stick = try temp.make("sync-stick"), root = try temp.make("sync-library")
        try Sticks.tone(stick + "/Salsa/01 Intro.wav", seconds: 0.5, frequency: 440)
        try Sticks.tone(stick + "/Salsa/02 Shines.flac", seconds: 0.5, format: .flac16, frequency: 660)
        let library = root + "/lib", trace = root + "/strace.log"

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/strace")
        process.arguments = ["-f", "-qq", "-y", "-o", trace, "-e", "trace=fsync,fdatasync,rename,renameat,renameat2",
                             SegmanceBinary.path, "import", stick, "--library", library]
        if Sanitizer.active {
            // LeakSanitizer cannot run under ptrace: it stops the traced binary with exit 1.
            var environment = ProcessInfo.processInfo.environment
            environment["ASAN_OPTIONS"] = "detect_leaks=0"
            process.environment = environment
        }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        try #require(process.terminationStatus == 0, "strace … segmance import exited \(process.terminationStatus)")

        let calls = try String(contentsOfFile: trace, encoding: .utf8).split(separator: "\n").compactMap(Self.call)
        var synced = Set<String>()
        var renamed: [String] = []
        var folderSyncedAfterLastRename = false
        for call in calls where call.succeeded {
            switch call.name {
            case "fsync", "fdatasync":
                // fsync(5</path/of/the/file>)
                if let open = call.arguments.firstIndex(of: "<"), let close = call.arguments.lastIndex(of: ">") {
                    let path = String(call.arguments[call.arguments.index(after: open)..<close])
                    synced.insert(path)
                    if !renamed.isEmpty, let last = renamed.last, path == (last as NSString).deletingLastPathComponent {
                        folderSyncedAfterLastRename = true
                    }
                }
            default:
                // rename("from", "to"), renameat(AT_FDCWD<…>, "from", AT_FDCWD<…>, "to")
                let quoted = call.arguments.split(separator: "\"", omittingEmptySubsequences: false)
                guard quoted.count >= 5 else { continue }
                let from = String(quoted[1]), to = String(quoted[3])
                #expect(synced.contains(from), "\(to) was named before its content was fsynced (\(from))")
                renamed.append(to)
                folderSyncedAfterLastRename = false
            }
        }
        let media = renamed.filter { $0.contains("/media/") || $0.hasPrefix(library) }
        #expect(media.count >= 2, "the import renamed \(renamed.count) files; each part's audio should be one")
        #expect(folderSyncedAfterLastRename,
                "the folder of \(renamed.last ?? "nothing") was not fsynced after its last rename")
    }

    /// `PID name(arguments) = result` as strace -f prints it; nil for other lines.
    static func call(_ line: Substring) -> Call? {
        // strace pads the PID column ("1697  fsync(" but "31697 fsync(").
        let words = line.drop { $0 != " " }.drop { $0 == " " }
        guard let open = words.firstIndex(of: "("), let equals = words.range(of: ") = ", options: .backwards) else {
            return nil
        }
        let result = words[equals.upperBound...].prefix { $0 != " " }
        let arguments = words[words.index(after: open)..<equals.lowerBound]
        return Call(name: String(words[..<open]), arguments: String(arguments), succeeded: result == "0")
    }
}
