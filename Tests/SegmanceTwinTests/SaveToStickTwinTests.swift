import Foundation
import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceTestSupport
@testable import SegmanceTwin
import StickTransfer
import Testing

/// *Save to stick* from the menu: with no stick in, and on a device, where the player may not
/// write the stick and hands the routines to the mount helper through its spool.
@Suite(.tags(.integration), .serialized) struct SaveToStickTwinTests {
    let temp = TempDirs()
    static let item = Menu.Item.allCases.firstIndex(of: .saveToStick)!

    /// A library holding "Counting" (one 5 s part) with a loop set on the box.
    private func library() throws -> Library {
        let stick = try temp.make("songs")
        try TestFiles.mkdir(stick + "/Counting")
        try TestFiles.write(TwinScenarioTests.source(frames: 5 * 48_000), to: stick + "/Counting/01 Count.wav")
        let library = try Library(directory: try temp.make("library"))
        #expect(Importer(library: library).run(stick) { _ in }.added == 1)
        try library.apply(.savedLoop(routine: "Counting", part: 0, partTitle: "Count", loop: ABLoop(a: 0, b: 48_000)))
        return library
    }

    /// The distinct screens from `start` until `seconds` later, looked at every tenth of a second.
    private func screens(_ appliance: Appliance, from start: Int64, seconds: Int) -> [[String]] {
        var shown: [[String]] = []
        for tenth in 0...seconds * 10 {
            appliance.send(.clock(start + Int64(tenth) * 100_000_000))
            if shown.last != appliance.frame.text { shown.append(appliance.frame.text) }
        }
        return shown
    }

    /// The menu opened with a push, turned down to *Save to stick* (the twin turns a detent
    /// about every 150 ms), pushed once the cursor is there.
    static let menuPushes = "1.0 tap select\n1.5 turn +\(item)\n\(1.5 + Double(item) * 0.15 + 1.5) tap select\n"

    @Test func withNoStickInTheMenuSaysSoAndWritesNothing() throws {
        var twin = TwinRun(configuration: Appliance.Configuration())
        twin.library = try Library(directory: try temp.make("library"))
        let output = try twin.run(try Scenario(parsing: Self.menuPushes + "12.0 end"), stick: nil) { _, _ in }
        // The cursor reached the item: the menu showed it just before the push.
        #expect(output.frames.lines.contains { $0.contains("Save to stick") }, "\(output.frames.lines)")
        #expect(output.frames.lines.contains { $0.contains("|!No stick in:   |not saved       |") },
                "\(output.frames.lines.suffix(6))")
        #expect(output.log.allSatisfy { !$0.contains("save to stick:") }, "\(output.log)")
    }

    /// The device's way: the routine goes to the spool's outbox, the request names the stick's
    /// device, the stick itself is not touched; the helper's answer is what the LCD says.
    @Test(arguments: [
        ("status=saved\nfolder=Counting\nmessage=", "Saved to stick: ", "Counting        "),
        ("status=locked\nmessage=cannot remount read-write, is write-protected",
         "!Stick locked:  ", "not saved       "),
        ("status=full\nmessage=41 MB needed, 3 MB free", "!Stick full:    ", "not saved       "),
        ("status=gone\nmessage=Input/output error", "!Stick pulled:  ", "not saved       "),
    ])
    func onADeviceTheMountHelperWritesAndItsAnswerIsShown(answer: String, first: String, second: String) throws {
        let appliance = try Appliance(Appliance.Configuration(), library: try library())
        let status = try temp.make("status")
        let spool = StickSaveSpool(directory: try temp.make("var") + "/stick-save", statusDirectory: status)
        appliance.stickSaveSpool = spool
        let stick = try temp.make("media") + "/sda1"
        try FileManager.default.createDirectory(atPath: stick, withIntermediateDirectories: false)
        appliance.stickInserted(stick)
        appliance.send(.clock(1_000_000_000))
        appliance.send(.buttonPressed(.select))
        appliance.send(.encoderTurned(Self.item))
        appliance.send(.buttonPressed(.select))

        let request = try String(contentsOfFile: spool.requestPath, encoding: .utf8)
        #expect(request.contains("\ndevice=sda1\n"), "\(request)")
        let id = try #require(request.split(separator: "\n").first { $0.hasPrefix("id=") }?.dropFirst(3))
        let manifest = spool.outbox + "/Segmance/Counting/routine.toml"
        #expect(FileManager.default.fileExists(atPath: manifest))
        #expect(try FileManager.default.contentsOfDirectory(atPath: stick).isEmpty)
        #expect(appliance.stickSaveDeadline != nil)

        // An answer to another request is not this one's.
        try "id=other\n\(answer)\n".write(toFile: spool.resultPath, atomically: true, encoding: .utf8)
        appliance.pollStickSave()
        #expect(appliance.stickSaveDeadline != nil)
        try "id=\(id)\n\(answer)\n".write(toFile: spool.resultPath, atomically: true, encoding: .utf8)
        appliance.pollStickSave()
        #expect(appliance.stickSaveDeadline == nil)
        // After the notices before it (the empty stick's, "Saving to stick").
        let shown = screens(appliance, from: 1_000_000_000, seconds: 30)
        #expect(shown.contains(["Saving to stick ", "...             "]), "\(shown)")
        #expect(shown.contains([first, second]), "\(shown)")
    }

    @Test func withNoAnswerTheSaveFailsAfterItsTime() throws {
        let appliance = try Appliance(Appliance.Configuration(), library: try library())
        let spool = StickSaveSpool(directory: try temp.make("var") + "/stick-save", statusDirectory: try temp.make("s"))
        appliance.stickSaveSpool = spool
        appliance.stickInserted(try temp.make("media"))
        appliance.send(.buttonPressed(.select))
        appliance.send(.encoderTurned(Self.item))
        appliance.send(.buttonPressed(.select))
        let due = try #require(appliance.stickSaveDeadline)
        appliance.send(.clock(due - 1))
        appliance.pollStickSave()
        #expect(appliance.stickSaveDeadline == due)
        appliance.send(.clock(due))
        appliance.pollStickSave()
        #expect(appliance.stickSaveDeadline == nil)
        let shown = screens(appliance, from: due, seconds: 30)
        #expect(shown.contains(["!Save failed:   ", "see the log     "]), "\(shown)")
    }
}
