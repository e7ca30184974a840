import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import SegmanceTestSupport
@testable import SegmanceTwin
import Testing

/// Nothing a teacher made is overridden or lost, on the demo stick with a real library:
/// a routine's own countdown stays its own, and a LOOP press hides the stick's loop for the
/// box without deleting it; *Stick loop* brings it back.
@Suite(.tags(.integration), .serialized) struct LayersTwinTests {
    let temp = TempDirs()

    private func demoStick() throws -> String {
        let root = try temp.make("demo")
        try DemoStick.write(to: root)
        return root
    }

    private func run(_ text: String, library: Library, stick: String? = nil,
                     _ settings: (inout Settings) -> Void = { _ in }) throws -> TwinRun.Output {
        var configuration = Appliance.Configuration()
        settings(&configuration.settings)
        var twin = TwinRun(configuration: configuration)
        twin.library = library
        return try twin.run(try Scenario(parsing: text), stick: stick) { _, _ in }
    }

    /// `sim --countdown beats4` on the demo stick: the box starts on "Street Jam" (its
    /// manifest counts 3 s), then "Warm-up Session" counts in four beats, and a save of the
    /// settings (the volume gesture) keeps the teacher's four beats.
    @Test func aRoutinesCountdownNeverReplacesTheTeachers() throws {
        let library = try Library(directory: try temp.make("library"))
        let output = try run("""
            1.0 hold next 0.8     # Warm-up Session
            3.0 chord play +1     # volume: the settings are saved when the bar goes
            6.0 tap play          # counts in
            6.2 end
            """, library: library, stick: try demoStick()) { $0.countdownBeats = 4 }
        #expect(output.finalState.routine?.title == "Warm-up Session")
        guard case .countingDown(let countdown) = output.finalState.transport else {
            Issue.record("not counting in: \(output.finalState.transport)")
            return
        }
        #expect(countdown.total == 4, "\(countdown)")
        let saved = try #require(try library.settings())
        #expect(saved.countdownBeats == 4 && saved.countdown == 0, "\(saved)")
        #expect(saved.volume == 85)
    }

    /// The demo scenario's "tap loop # clear the saved loop" hides the stick's loop 0:08–0:16
    /// of "Groove" for the box; the library keeps it, a re-import of the unchanged stick keeps
    /// the teacher's choice, and *Stick loop* in the menu brings it back, also after a restart.
    @Test func aLoopPressHidesTheSticksLoopAndStickLoopBringsItBack() throws {
        let directory = try temp.make("library")
        let stick = try demoStick()
        let loop = ABLoop(a: 8 * 48_000, b: 16 * 48_000)
        let first = try run("""
            0.5 tap next          # Groove: its loop armed
            1.0 tap loop          # clear it
            2.0 end
            """, library: try Library(directory: directory), stick: stick)
        #expect(first.finalState.loop == .off)
        var stored = try #require(try Library(directory: directory).routine(titled: "Street Jam")?.parts[1])
        #expect(stored.part.savedLoop == nil && stored.part.stickLoop == loop)
        #expect(stored.manifestLoop == loop && stored.deviceLoop == .some(nil))

        // The same stick again (the box resumes on Groove): unchanged, the loop stays hidden.
        let again = try run("1.0 end", library: try Library(directory: directory), stick: stick)
        #expect(again.finalState.part?.title == "Groove")
        #expect(again.log.contains("import: Street Jam: unchanged"))
        #expect(again.finalState.loop == .off)

        let index = Menu.Item.allCases.firstIndex(of: .stickLoop)!
        let back = try run("""
            1.0 tap select
            1.5 turn +\(index)     # a detent each 150 ms
            4.5 tap select        # Stick loop: back
            5.5 end
            """, library: try Library(directory: directory))
        #expect(back.finalState.loop == .ab(loop))
        stored = try #require(try Library(directory: directory).routine(titled: "Street Jam")?.parts[1])
        #expect(stored.part.savedLoop == loop && stored.deviceLoop == nil)
        let restarted = try run("1.0 end", library: try Library(directory: directory))
        #expect(restarted.finalState.part?.title == "Groove")
        #expect(restarted.finalState.loop == .ab(loop))
    }
}
