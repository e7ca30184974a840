import Foundation
import Testing

/// The start volume (issue 29, item 7) with the real binary: a volume of 100 % saved by
/// `segmance sim --library` starts at 70 % when the simulator restarts on the same library.
@Suite(.tags(.integration)) struct StartVolumeCommandTests {
    let root = FileManager.default.temporaryDirectory
        .appendingPathComponent("segmance-volume-\(UUID().uuidString)").path

    @Test func aSavedVolumeOfAHundredStartsAtSeventyAfterARestart() throws {
        defer { try? FileManager.default.removeItem(atPath: root) }
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try runSegmance(["demo-stick", root + "/stick"])
        let library = root + "/library"
        // PLAY held, the encoder turned: 80 -> 100 %, saved when the bar goes (1.5 s later).
        try "0.5 chord play +4\n3.0 end\n".write(toFile: root + "/loud.scenario", atomically: true, encoding: .utf8)
        // After the restart one detent down shows where it started: 65 % from 70 %.
        try "0.5 chord play -1\n1.0 end\n".write(toFile: root + "/morning.scenario", atomically: true, encoding: .utf8)
        try runSegmance(["sim", "--stick", root + "/stick", "--library", library, "--scenario", root + "/loud.scenario",
                 "--frames", root + "/loud.txt"])
        let saved = try runSegmance(["library", "settings", "--library", library])
        #expect(saved.contains("volume = 100"), "\(saved)")
        try runSegmance(["sim", "--library", library, "--scenario", root + "/morning.scenario",
                         "--frames", root + "/morning.txt"])
        let loud = try String(contentsOfFile: root + "/loud.txt", encoding: .utf8)
        let morning = try String(contentsOfFile: root + "/morning.txt", encoding: .utf8)
        #expect(loud.contains("100%"), "\(loud)")
        #expect(morning.contains("65%") && !morning.contains("95%"), "\(morning)")
    }
}
