import Glibc
import SegmanceCore
@testable import SegmanceDaemon
import SegmanceLibrary
import SegmanceTestSupport
import StickTransfer
import Testing

/// *Save to stick* in the daemon: the menu driven by a pedal's key and an encoder's detents
/// (`DaemonLoopTests.profileText`), the routine written to the spool in the library's folder
/// with a request naming the stick's device, and the mount helper's answer (a dot file renamed in the status folder,
/// as deploy/segmance-stick writes it) waking the loop through inotify onto the LCD.
@Suite(.tags(.integration), .serialized) struct SaveToStickDaemonTests {
    @Test func theMountHelpersAnswerIsShownOnTheLCD() throws {
        let folders = TempDirs()
        let songs = try folders.make("songs")
        try TestFiles.mkdir(songs + "/Counting")
        try TestFiles.tone(songs + "/Counting/01 Count.wav")
        let library = try folders.make("library")
        #expect(Importer(library: try Library(directory: library)).run(songs) { _ in }.added == 1)
        // A stick mounted at MEDIA/sda1, as the mount table says.
        let media = try folders.make("media")
        try TestFiles.mkdir(media + "/sda1")
        let mountinfo = try folders.make("proc") + "/mountinfo"
        try TestFiles.writeText("36 25 8:1 / \(media)/sda1 ro,nosuid - vfat /dev/sda1 ro\n", to: mountinfo)
        let status = try folders.make("status")

        let inputs = FakeInputDirectory()
        let log = Transcript(), screen = Transcript()
        let daemon = try DaemonLoopTests.makeDaemon(inputs: inputs, log: log, screen: screen,
                                                    audio: RecordingAudioEngine(), folders: folders, library: library,
                                                    stickStatus: status, mediaRoot: media, mountinfo: mountinfo)
        let running = try DaemonThread(daemon)
        let spool = StickSaveSpool(directory: library + "/stick-save", statusDirectory: status)

        inputs.plug("event0")
        #expect(log.wait { $0 == "input: \"Test Pedal\" at \(inputs.path)/event0" })
        inputs.key("event0", code: 48, down: true)   // KEY_B: the encoder's push
        inputs.key("event0", code: 48, down: false)
        #expect(screen.wait { $0.contains(">Routines") }, "\(screen.lines.suffix(3))")
        // One detent at a time, each waited for on the LCD, until the cursor is on Save to stick;
        // a redraw of another cause lets two detents through, so one past it turns back.
        let past = Menu.Item.allCases.drop { $0 != .saveToStick }.dropFirst().map { ">" + $0.rawValue }
        for _ in 0..<(2 * Menu.Item.allCases.count) {
            let last = screen.lines.last ?? ""
            if last.contains(">Save to stick") { break }
            let drawn = screen.lines.count
            inputs.turn("event0", by: past.contains { last.contains($0) } ? -1 : 1)
            _ = screen.wait { _ in screen.lines.count > drawn }
        }
        #expect(screen.wait { $0.contains(">Save to stick") }, "\(screen.lines.suffix(3))")
        inputs.key("event0", code: 48, down: true)
        inputs.key("event0", code: 48, down: false)

        #expect(log.wait { $0.hasPrefix("save to stick: asked the mount helper") }, "\(log.lines)")
        let request = try String(contentsOfFile: spool.requestPath, encoding: .utf8)
        #expect(request.hasSuffix("\ndevice=sda1\n"), "\(request)")
        let id = String(request.split(separator: "\n")[0].dropFirst("id=".count))
        #expect(access(spool.outbox + "/Segmance/Counting/routine.toml", F_OK) == 0)

        try TestFiles.writeText("id=\(id)\nstatus=saved\nfolder=Counting\nmessage=\n", to: status + "/.save-result.tmp")
        #expect(rename(status + "/.save-result.tmp", spool.resultPath) == 0)
        #expect(log.wait { $0 == "save to stick: written to the stick: Segmance/Counting" }, "\(log.lines)")
        // After the notices before it (the empty stick's, "Saving to stick").
        #expect(screen.wait(seconds: 30) { $0.contains("│Saved to stick: │") && $0.contains("│Counting        │") },
                "\(screen.lines.suffix(4))")
        // The answer is no refused stick.
        #expect(!log.lines.contains { $0.hasPrefix("stick: ") && $0.contains("save-result") })
        #expect(running.stop())
    }
}
