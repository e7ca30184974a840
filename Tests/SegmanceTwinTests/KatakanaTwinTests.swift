import CharacterDisplay
import LinuxI2C
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceTestSupport
import Testing
import SegmanceAppliance
@testable import SegmanceTwin

/// Japanese names on an HD44780 with the A00 ROM: kana as its half-width katakana, a
/// manifest's `short` for kanji, and names it cannot show told apart by their place. The
/// twin's frames go through the real driver into the controller model, and what the model
/// shows is read back.
@Suite(.tags(.integration)) struct KatakanaTwinTests {
    let temp = TempDirs()
    static let rate = 48_000

    /// A stick of four one-part routines: kana, kanji with a short name, and two in kanji only.
    private func stick() throws -> String {
        let root = try temp.make("stick")
        let routines: [(folder: String, manifest: String)] = [
            ("Bon", "title = \"ぼんおどり\"\n"),
            ("Natsu", "title = \"夏祭り\"\nshort = \"ナツマツリ\"\n"),
            ("Hanabi", "title = \"花火\"\n"),
            ("Taiko", "title = \"太鼓\"\n"),
        ]
        for routine in routines {
            let folder = root + "/" + routine.folder
            try TestFiles.mkdir(folder)
            try TestFiles.write(TwinScenarioTests.source(frames: 10 * Self.rate), to: folder + "/01 Song.wav")
            try TestFiles.writeText(routine.manifest + "[[part]]\nfile = \"01 Song.wav\"\n", to: folder + "/routine.toml")
        }
        return root
    }

    /// After the import's notices, the menu's routine list, from the first routine to the last.
    static let scenario = """
        7.0 tap select
        7.5 tap select
        8.0 turn -4
        8.5 turn +1
        9.0 turn +1
        9.5 turn +1
        10.0 turn +1
        11.0 end
        """

    /// Each frame the twin logged, drawn by the HD44780 driver and decoded by the model.
    private func lcdScreens(_ frames: [Frame], columns: Int, rows: Int) throws -> [[String]] {
        let bus = RecordingI2CBus()
        let display = HD44780Display(bus: bus, columns: columns, rows: rows, delay: NoDelay())
        var model = HD44780Model(pinMap: .common, columns: columns, rows: rows)
        var screens: [[String]] = []
        for frame in frames {
            try display.show(frame)
            model.receive(bus.bytes)
            bus.clear()
            var shown = Frame(columns: columns, rows: rows)
            shown.cells = model.screen.flatMap { $0 }
            shown.glyphs = frame.glyphs
            screens.append(shown.text)
        }
        return screens
    }

    @Test(arguments: [(16, 2), (20, 4)])
    func japaneseNamesShowAsTheROMsKatakanaOnTheLCD(columns: Int, rows: Int) throws {
        var configuration = Appliance.Configuration()
        configuration.columns = columns
        configuration.rows = rows
        configuration.rom = .a00
        let twin = TwinRun(configuration: configuration)
        let output = try twin.run(try Scenario(parsing: Self.scenario), stick: try stick()) { _, _ in }
        let screens = try lcdScreens(output.frames.frames, columns: columns, rows: rows)
        // The LCD shows what the twin logged, cell for cell.
        #expect(screens == output.frames.frames.map(\.text))
        let rowsShown = screens.flatMap { $0 }
        // ぼんおどり: ﾎ and ﾞ, ﾝ, ｵ, ﾄ and ﾞ, ﾘ; 夏祭り by its short name.
        #expect(rowsShown.contains { $0.contains("ﾎﾞﾝｵﾄﾞﾘ") })
        #expect(rowsShown.contains { $0.contains("ﾅﾂﾏﾂﾘ") })
        // The two in kanji only, told apart by their place in the list; never a row of "?".
        let places = try #require(output.finalState.routines.firstIndex { $0.title == "花火" }).advanced(by: 1)
        let other = try #require(output.finalState.routines.firstIndex { $0.title == "太鼓" }).advanced(by: 1)
        #expect(rowsShown.contains { $0.contains("Routine \(places)") })
        #expect(rowsShown.contains { $0.contains("Routine \(other)") })
        #expect(!rowsShown.contains { $0.contains("??") })
        // The bytes the model holds are the ROM's codes: ﾎ is 0xCE, ﾞ 0xDE.
        #expect(output.frames.frames.contains { $0.cells.starts(with: [0x20, 0xCE, 0xDE, 0xDD]) })
    }

    @Test func theShortNameAndTheTitleAreKeptByTheLibrary() throws {
        let library = try Library(directory: try temp.make("library"))
        var twin = TwinRun(configuration: Appliance.Configuration())
        twin.library = library
        _ = try twin.run(try Scenario(parsing: "0.5 end"), stick: try stick()) { _, _ in }
        let natsu = try #require(try Library(directory: library.directory).routines().first { $0.title == "夏祭り" })
        #expect(natsu.short == "ナツマツリ")
        #expect(try library.routines().first { $0.title == "花火" }?.short == nil)
    }
}

/// No waiting: the model needs none.
private final class NoDelay: Delay {
    func wait(microseconds: Int) {}
}
