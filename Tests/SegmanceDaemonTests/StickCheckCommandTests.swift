import Foundation
import SegmanceTestSupport
import Testing

/// `segmance stick check` (the real binary) names what an import would leave out, and says
/// when a stick holds no music at all, with status 1 (issue 24, bugs 4 and 6).
@Suite(.tags(.integration)) struct StickCheckCommandTests {
    let temp = TempDirs()

    private func check(_ arguments: [String]) throws -> (status: Int32, out: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: RunCommandTests.binary)
        process.arguments = ["stick", "check"] + arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    private func song(_ path: String, frequency: Double) throws {
        try TestFiles.mkdir((path as NSString).deletingLastPathComponent)
        try TestFiles.write(TestFiles.sine(frequency: frequency, rate: 48_000, frames: 24_000), to: path)
    }

    @Test func songsAOnePartManifestLeavesOutAreNamedInTextAndJSON() throws {
        let stick = try temp.make("stick")
        try song(stick + "/Salsa/01 Intro.wav", frequency: 300)
        try song(stick + "/Salsa/02 Verse.wav", frequency: 400)
        try song(stick + "/Salsa/03 Chorus.wav", frequency: 500)
        try TestFiles.writeText("[[part]]\nfile = \"01 Intro.wav\"\n", to: stick + "/Salsa/routine.toml")
        let text = try check([stick])
        #expect(text.status == 1)
        #expect(text.out.contains("Salsa: not in routine.toml: 02 Verse.wav, 03 Chorus.wav"), "\(text.out)")
        let json = try check([stick, "--json"])
        #expect(json.status == 1)
        #expect(json.out.contains("\"reason\" : \"not in routine.toml: 02 Verse.wav, 03 Chorus.wav\"")
                || json.out.contains("\"reason\":\"not in routine.toml: 02 Verse.wav, 03 Chorus.wav\""), "\(json.out)")
    }

    @Test func anEmptyStickExitsNonZeroWithANoMusicLine() throws {
        let stick = try temp.make("empty")
        try TestFiles.writeText("notes", to: stick + "/README.txt")
        let result = try check([stick])
        #expect(result.status == 1)
        #expect(result.out.contains("0 routines to import, 1 problem"), "\(result.out)")
        #expect(result.out.contains(".: no music on this stick: looked for audio files (aac, aif"), "\(result.out)")
    }

    @Test func looseSongsAreTitledWithTheLabelOrUSBStick() throws {
        let stick = try temp.make("sda1")
        try song(stick + "/01 Warmup.wav", frequency: 300)
        #expect(try check([stick]).out.contains("USB stick"))
        #expect(!(try check([stick]).out.contains("sda1 (")))
        #expect(try check([stick, "--label", "Salsa class"]).out.contains("Salsa class"))
    }
}
