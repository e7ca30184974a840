import Foundation
import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
@testable import SegmanceTwin
import StickTransfer
import Testing

/// *Save to stick* driven by name (`export DIR`): the routine changed on the box goes to a
/// folder that imports into an empty library as the same routine (issue 26, items 4 and 6).
@Suite(.tags(.integration), .serialized) struct ExportTwinTests {
    let temp = TempDirs()

    private func run(_ text: String, library: Library, stick: String? = nil) throws -> TwinRun.Output {
        var twin = TwinRun(configuration: Appliance.Configuration())
        twin.library = library
        return try twin.run(try Scenario(parsing: text), stick: stick) { _, _ in }
    }

    /// What an export carries of a part: all but where its beat came from and the stick's
    /// loop a loop set on the box hides.
    private func carried(_ part: Part) -> String {
        let bpm = part.grid.map { ($0.bpm(sampleRate: 48_000) * 1000).rounded() / 1000 }
        return "\(part.title) \(String(describing: part.range)) \(part.length) \(part.moves) "
            + "\(String(describing: part.savedLoop)) \(part.speed) \(String(describing: bpm)) "
            + "\(String(describing: part.grid?.one)) \(part.loops) \(String(describing: part.short))"
    }

    @Test func theScenarioExportsARoutineThatImportsBackEqual() throws {
        let stick = try temp.make("demo")
        try DemoStick.write(to: stick)
        let library = try Library(directory: try temp.make("library"))
        _ = try run("0.5 end", library: library, stick: stick)
        // A loop, a speed and a "1" set on the box, so that none is the stick's.
        let groove = try #require(try library.routine(titled: "Street Jam")?.routine.parts[1])
        try library.apply(.savedLoop(routine: "Street Jam", part: 1, partTitle: "Groove", loop: ABLoop(a: 24_000, b: 96_000)))
        try library.apply(.partSpeed(routine: "Street Jam", part: 1, partTitle: "Groove", speed: 80))
        let grid = try #require(groove.grid)
        try library.apply(.grid(routine: "Street Jam", part: 1, partTitle: "Groove",
                                grid: BeatGrid(beatFrames: grid.beatFrames, one: grid.one + 1_234, origin: .performer)))
        let out = try temp.make("out")
        let output = try run("1.0 export \(out)\n4.0 end", library: library)
        #expect(output.log.contains { $0.contains("save to stick: \"Street Jam\" written to \(out)/Segmance/Street Jam") },
                "\(output.log)")
        #expect(output.frames.lines.contains { $0.contains("|Saved to stick: |Street Jam      |") },
                "\(output.frames.lines.suffix(5))")

        let fresh = try Library(directory: try temp.make("fresh"))
        let summary = Importer(library: fresh).run(out) { _ in }
        #expect(summary.added == 1 && summary.failed == 0, "\(summary)")
        let before = try #require(try library.routine(titled: "Street Jam")).routine
        let after = try #require(try fresh.routine(titled: "Street Jam")).routine
        #expect(after.subtitle == before.subtitle && after.countdown == before.countdown)
        #expect(after.parts.map(carried) == before.parts.map(carried))
        // The audio is named by its source file, which differs; its samples are the same.
        for (a, b) in zip(before.parts, after.parts) {
            let x = try Data(contentsOf: URL(fileURLWithPath: library.store.path(of: a.audio.id)))
            let y = try Data(contentsOf: URL(fileURLWithPath: fresh.store.path(of: b.audio.id)))
            #expect(x == y)
        }
        #expect(after.parts[1].speed == 80 && after.parts[1].savedLoop == ABLoop(a: 24_000, b: 96_000))
    }
}
