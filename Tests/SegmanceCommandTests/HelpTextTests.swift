import Foundation
import Testing

/// Every `--help` of the real `segmance` binary, walked through its subcommands, says what
/// a person types: no Swift value (`DisplaySize(columns: 16, rows: 2)`, `Optional(…)`) and
/// no name of a type declared in `Sources/`.
@Suite(.tags(.integration)) struct HelpTextTests {
    static var binary: String {
        if let given = ProcessInfo.processInfo.environment["SEGMANCE_BIN"] { return given }
        let bundle = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        return bundle.deletingLastPathComponent().appendingPathComponent("segmance").path
    }

    /// The help of `segmance` followed by `path`, and its exit status.
    static func help(_ path: [String]) throws -> (text: String, status: Int32) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = path + ["--help"]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (String(decoding: data, as: UTF8.self), process.terminationStatus)
    }

    /// The names listed under "SUBCOMMANDS:" (one a line, indented two spaces; a
    /// continuation of the abstract is indented further).
    static func subcommands(_ help: String) -> [String] {
        guard let start = help.range(of: "\nSUBCOMMANDS:\n") else { return [] }
        var names: [String] = []
        for line in help[start.upperBound...].split(separator: "\n", omittingEmptySubsequences: false) {
            if line.isEmpty || !line.hasPrefix(" ") { if !names.isEmpty && line.isEmpty { break } else { continue } }
            guard line.hasPrefix("  "), !line.hasPrefix("   ") else { continue }
            if let name = line.split(separator: " ").first, name != "help" { names.append(String(name)) }
        }
        return names
    }

    /// Every command path, `[]` (the root) first.
    static func commandTree() throws -> [[String]] {
        var found: [[String]] = []
        var queue: [[String]] = [[]]
        while !queue.isEmpty {
            let path = queue.removeFirst()
            found.append(path)
            queue += subcommands(try help(path).text).map { path + [$0] }
        }
        return found
    }

    /// Type names declared in `Sources/` that read as code, not words: UpperCamelCase with
    /// at least two humps (`DisplaySize`, `BoardProfile`; not `Library`).
    static let declaredTypeNames: Set<String> = {
        let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources")
        let declaration = try! NSRegularExpression(
            pattern: #"\b(?:struct|class|enum|protocol|actor|typealias)\s+([A-Z][a-z0-9]+(?:[A-Z][A-Za-z0-9]*)+)\b"#)
        var names: Set<String> = []
        let files = FileManager.default.enumerator(atPath: sources.path)?.compactMap { $0 as? String } ?? []
        for file in files where file.hasSuffix(".swift") {
            guard let text = try? String(contentsOfFile: sources.path + "/" + file, encoding: .utf8) else { continue }
            for match in declaration.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                names.insert((text as NSString).substring(with: match.range(at: 1)))
            }
        }
        return names
    }()

    /// What in `help` reads as a Swift value or a type name, empty when nothing does.
    static func swiftValues(in help: String) -> [String] {
        var found: [String] = []
        // A struct's or an enum case's description: `Name(label: …`; an optional's.
        let value = try! NSRegularExpression(pattern: #"\b\w+\(\w+:|\bOptional\("#)
        for match in value.matches(in: help, range: NSRange(help.startIndex..., in: help)) {
            found.append((help as NSString).substring(with: match.range))
        }
        let words = Set(help.split { !$0.isLetter && !$0.isNumber }.map(String.init))
        found += words.intersection(declaredTypeNames).sorted()
        return found
    }

    @Test func theWalkFindsEveryCommand() throws {
        let tree = try Self.commandTree()
        // The commands the README documents, subcommands included.
        for path in [["run"], ["sim"], ["demo-stick"], ["devices"], ["stick", "check"], ["import"],
                     ["library", "list"], ["library", "show"], ["library", "remove"], ["library", "check"]] {
            #expect(tree.contains(path), "\(path) missing from \(tree)")
        }
        #expect(Self.declaredTypeNames.contains("DisplaySize"))
    }

    @Test func theCheckSeesASwiftValue() {
        #expect(Self.swiftValues(in: "(default: DisplaySize(columns: 16, rows: 2))") == ["DisplaySize(columns:", "DisplaySize"])
        #expect(Self.swiftValues(in: "(default: Optional(\"x\"))") == ["Optional("])
        #expect(Self.swiftValues(in: "The display: 16x2 or 20x4. (default: 16x2)").isEmpty)
    }

    @Test func noHelpPrintsASwiftValue() throws {
        for path in try Self.commandTree() {
            let (text, status) = try Self.help(path)
            #expect(status == 0, "segmance \(path.joined(separator: " ")) --help exited \(status)")
            #expect(Self.swiftValues(in: text).isEmpty,
                    "segmance \((path + ["--help"]).joined(separator: " ")) prints \(Self.swiftValues(in: text)):\n\(text)")
        }
    }
}
