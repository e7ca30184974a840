import Foundation
import SegmanceCore
import SegmanceStick
import SegmanceTestSupport
import Testing

/// Manifests that crashed or exhausted the parser before (toml++ inside TOMLKit failed an
/// assert on the first four and aborted the process; the large one took over a minute and
/// 280 MB): each is now a problem naming the file, and the rest of the stick imports.
@Suite(.tags(.integration)) struct HostileManifestTests {
    let temp = TempDirs()

    /// A stick with a good routine "Tango" and a routine "Bad" whose routine.toml is `bytes`.
    /// `refused`: the manifest cannot be read, so "Bad" stays out (else it imports, its
    /// problem named).
    private func check(_ bytes: [UInt8], refused: Bool = true) throws -> StickContent {
        let root = try temp.make("hostile")
        try TestFiles.mkdir(root + "/Bad")
        try TestFiles.mkdir(root + "/Tango")
        try TestFiles.tone(root + "/Bad/song.wav", seconds: 0.1)
        try TestFiles.tone(root + "/Tango/01 Tango.wav", seconds: 0.1)
        try Data(bytes).write(to: URL(fileURLWithPath: root + "/Bad/routine.toml"))
        let content = StickChecker().check(root)
        guard refused else { return content }
        #expect(content.routines.map(\.title) == ["Tango"])
        #expect(content.problems.last == StickProblem(path: "Bad", reason: "routine \"Bad\" skipped: its routine.toml has 1 problem")
                || content.problems.last == StickProblem(path: "Bad", reason: "routine \"Bad\" skipped: its routine.toml is unusable"),
                "\(content.problems)")
        return content
    }

    private func manifestProblem(_ content: StickContent) -> String {
        content.problems.first { $0.path == "Bad/routine.toml" }?.reason ?? "none"
    }

    @Test func bracketBackslash() throws {
        let content = try check(Array("[\\".utf8))
        #expect(manifestProblem(content)
                == "line 1: TOML syntax error: expected a key (letters, digits, '_' and '-', or a \"quoted\" name), found '\\' (column 2)")
    }

    /// Found by fuzzing the demo manifest against toml++ (one case in about 270).
    @Test func arrayHeaderWithAControlCharacter() throws {
        let content = try check(Array(HostileSticks.mutatedDemoManifest.utf8))
        #expect(manifestProblem(content).hasPrefix("line 27: TOML syntax error: expected a key"), "\(content.problems)")
        #expect(manifestProblem(content).hasSuffix("found a control character (U+0015) (column 3)"))
    }

    @Test func arrayHeaderWithABackslash() throws {
        let content = try check(Array("[[\\part]]\nfile = \"song.wav\"\n".utf8))
        #expect(manifestProblem(content).hasPrefix("line 1: TOML syntax error: expected a key"))
    }

    @Test func headerWithAControlCharacterAfterAValue() throws {
        let content = try check(Array("title = \"x\"\n[\u{01}]\n".utf8))
        #expect(manifestProblem(content).hasPrefix("line 2: TOML syntax error: expected a key"))
    }

    @Test func bracketsNestedAHundredThousandDeep() throws {
        let content = try check(Array(("title = " + String(repeating: "[", count: 100_000)).utf8))
        #expect(manifestProblem(content) == "line 1: TOML syntax error: values nested more than 16 levels deep (column 25)")
    }

    @Test func notUTF8() throws {
        let content = try check(Array("title = \"caf".utf8) + [0xE9] + Array("\"\n".utf8))
        #expect(manifestProblem(content)
                == "line 1: TOML syntax error: the text is not UTF-8 (byte 0xE9 at byte offset 12); save the file as UTF-8 (column 13)")
    }

    /// 56 MB of manifest-like text: refused from its size before it is read.
    @Test func aManifestOverTheLimitIsRefusedBeforeItIsRead() throws {
        let content = try check(HostileSticks.hugeManifest())
        #expect(manifestProblem(content)
                == "routine.toml is 53.4 MiB; a routine.toml may be at most 256 KiB (it holds titles, cuts, loops and moves, not media)")
    }

    @Test func aManifestAtTheLimitIsRead() throws {
        let root = try temp.make("limit")
        try TestFiles.mkdir(root + "/Big")
        try TestFiles.tone(root + "/Big/song.wav", seconds: 0.1)
        var text = Array("title = \"Big\"\n".utf8)
        text += [UInt8](repeating: UInt8(ascii: "#"), count: 256 * 1024 - text.count)
        try Data(text).write(to: URL(fileURLWithPath: root + "/Big/routine.toml"))
        let content = StickChecker().check(root)
        #expect(content.problems.isEmpty, "\(content.problems)")
        #expect(content.routines.map(\.title) == ["Big"])
        try Data(text + [0x0A]).write(to: URL(fileURLWithPath: root + "/Big/routine.toml"))
        #expect(StickChecker().check(root).problems.first?.reason
                == "routine.toml is 256.0 KiB; a routine.toml may be at most 256 KiB (it holds titles, cuts, loops and moves, not media)")
    }

    @Test func moreThan250PartsIsAProblem() throws {
        let text = String(repeating: "[[part]]\nfile = \"song.wav\"\n", count: 251)
        let content = try check(Array(text.utf8), refused: false)
        #expect(manifestProblem(content) == "line 501: more than 250 parts: a routine may have at most 250")
        #expect(content.routines.map(\.title) == ["Bad", "Tango"])
        #expect(content.routines.first?.parts.count == 250)
    }
}
