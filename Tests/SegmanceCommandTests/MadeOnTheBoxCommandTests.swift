import Foundation
import Testing

/// A loop named and a move added on the box with `segmance sim --library`, as the real
/// binary: a restart of the simulator on the same library has them, and `library show --json`
/// reports the named loop (seconds and frames) and the move's type.
@Suite(.tags(.integration)) struct MadeOnTheBoxCommandTests {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("segmance-made-\(UUID().uuidString)").path

    @discardableResult
    func run(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        try runSegmance(args, sourceLocation: sourceLocation)
    }

    struct Report: Decodable {
        struct Part: Decodable {
            struct Loop: Decodable, Equatable { var name: String; var a: Double; var b: Double; var aFrame: Int64; var bFrame: Int64 }
            struct Move: Decodable { var type: String; var name: String; var at: Double? }
            var title: String
            var loops: [Loop]
            var moves: [Move]
        }
        var parts: [Part]
    }

    @Test func aLoopAndAMoveMadeOnTheBoxSurviveARestartAndShowInTheLibrary() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try run(["demo-stick", root + "/stick"])
        let library = root + "/library"
        // Street Jam counts in 3 s: the Intro's music starts 3.06 s after PLAY (at 0.5 s).
        try "0.5 tap play\n5.0 tap loop\n7.0 tap loop\n7.5 loop add Chorus\n8.0 move add Spin\n9.0 end\n"
            .write(toFile: root + "/make.scenario", atomically: true, encoding: .utf8)
        try "0.5 end\n".write(toFile: root + "/restart.scenario", atomically: true, encoding: .utf8)
        try run(["sim", "--stick", root + "/stick", "--library", library, "--scenario", root + "/make.scenario",
                 "--frames", root + "/first.txt"])
        try run(["sim", "--library", library, "--scenario", root + "/restart.scenario", "--frames", root + "/second.txt"])
        let json = try run(["library", "show", "Street Jam", "--json", "--library", library])
        let intro = try #require(try JSONDecoder().decode(Report.self, from: Data(json.utf8)).parts.first)
        #expect(intro.title == "Intro")
        let loop = try #require(intro.loops.first)
        #expect(intro.loops.count == 1 && loop.name == "Chorus")
        // Marked at 5 s and 7 s: 1.44 s and 3.44 s into the Intro, 2 s apart.
        #expect(loop.bFrame - loop.aFrame == 96_000 && abs(loop.a - 1.44) < 0.01, "\(loop)")
        let spin = try #require(intro.moves.first { $0.type == "Spin" })
        #expect(spin.name == "Spin" && spin.at.map { $0 >= loop.a && $0 < loop.b } == true)
        let text = try run(["library", "show", "Street Jam", "--library", library])
        #expect(text.contains("loop Chorus: 0:01.4–0:03.4"), "\(text)")
    }
}
