import Foundation
import SegmanceAppliance
import SegmanceCore
import SegmanceLibrary
import SegmanceScreen
import SegmanceTestSupport
import Testing
@testable import SegmanceTwin
#if canImport(Glibc)
import Glibc
#endif

/// The card under the library fills up during rehearsal (something else took the space): a
/// loop marked, the volume changed and the resume point each fail to save. The LCD says so,
/// the log has each at error priority, what was saved before stays, and each is tried again
/// until it lands once there is room. A real tmpfs, a real library, the appliance as the
/// daemon wires it.
@Suite(.tags(.integration), .serialized) struct FullCardTwinTests {
    let temp = TempDirs()

    @Test(.enabled(if: Mounts.permitted, "mounting a small tmpfs needs CAP_SYS_ADMIN"))
    func savesOnAFullCardAreShownKeptAndRetriedUntilTheyLand() throws {
        let card = try temp.make("card")
        #expect(mount("tmpfs", card, "tmpfs", 0, "size=4m") == 0)
        defer { umount2(card, Int32(MNT_DETACH)) }
        let stick = try temp.make("stick")
        try TestFiles.mkdir(stick + "/Counting")
        try TestFiles.write(TwinScenarioTests.source(frames: 4 * 48_000), to: stick + "/Counting/01 Count.wav")

        var configuration = Appliance.Configuration()
        configuration.settings.volume = 80
        func boot() throws -> (Library, Appliance) {
            let library = try Library(directory: card + "/library")
            let audio = TwinAudio(sampleRate: 48_000, config: configuration.render)
            return (library, try Appliance(configuration, audio: audio, library: library))
        }
        do {
            let (library, appliance) = try boot()
            appliance.importStick(stick)
            #expect(appliance.state.routine?.title == "Counting")
            try library.apply(.settings(appliance.state.settings))
        }
        // The box starts again (SQLite's write-ahead log starts empty and grows with the saves).
        let (library, appliance) = try boot()
        var lines: [(error: Bool, text: String)] = []
        appliance.log = { lines.append((false, $0)) }
        appliance.logError = { lines.append((true, $0)) }
        appliance.logsSaves = true

        // Something else fills the card to its last byte.
        let filler = card + "/filler"
        try fill(filler)
        var now: Int64 = 1_000_000_000
        func at(_ seconds: Double, _ event: Event) {
            now = Int64(seconds * 1e9)
            appliance.advance(to: now)
            appliance.send(event)
        }
        at(1, .encoderTurned(2)) // stopped: to 0:02
        at(2, .buttonPressed(.loop)) // A at 0:02
        at(2.1, .encoderTurned(1))
        at(2.2, .buttonPressed(.loop)) // B at 0:03: the loop is saved, or not
        #expect(appliance.frame.text == ["!Card full:     ", "not saved       "], "\(appliance.frame.text)")
        // The saved 80 % started at 70 % (the start maximum): volume 75 %, saved when the bar goes.
        at(2.5, .encoderTurnedHolding(.play, 1))
        at(4.5, .clock(4_500_000_000))
        at(5, .buttonLongPressed(.play)) // stop: the resume point
        #expect(appliance.unsaved.count == 3, "\(appliance.unsaved)")
        let errors = lines.filter(\.error).map(\.text)
        #expect(errors.contains { $0.hasPrefix("not saved: loop \"Counting\" part 1 frames 96000-144000: ") })
        #expect(errors.contains { $0.hasPrefix("not saved: settings ") && $0.contains("volume=75") })
        #expect(errors.contains { $0.hasPrefix("not saved: resume \"Counting\" part 1") })
        // What was saved before stays.
        #expect(try library.settings()?.volume == 80)
        #expect(try library.routine(titled: "Counting")?.parts[0].deviceLoop == nil)

        // Still full at the retry: nothing lands, the notice is not repeated.
        at(15.1, .clock(15_100_000_000))
        #expect(appliance.unsaved.count == 3)
        #expect(appliance.nextSaveRetry == 25_100_000_000)
        unlink(filler)
        at(26, .clock(26_000_000_000))
        #expect(appliance.unsaved.isEmpty, "\(lines.filter(\.error).map(\.text))")
        #expect(appliance.nextSaveRetry == nil)
        #expect(appliance.state.notice?.notice.lines == ["Saved now"]
            || appliance.state.pendingNotices.contains { $0.lines == ["Saved now"] })
        #expect(lines.contains { !$0.error && $0.text == "saved now: every save that had failed" })

        // A restart finds everything that was acknowledged, and the library whole.
        let reopened = try Library(directory: card + "/library")
        #expect(try reopened.settings()?.volume == 75)
        #expect(try reopened.routines().first?.parts[0].savedLoop == ABLoop(a: 96_000, b: 144_000))
        #expect(try reopened.resume()?.position == 96_000)
        #expect(try reopened.verify() == [])
    }

    /// Writes `path` until the file system says it is full.
    private func fill(_ path: String) throws {
        // Close-on-exec: a child a parallel test spawns meanwhile would keep the space held.
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        #expect(fd >= 0)
        defer { close(fd) }
        let block = [UInt8](repeating: 0x55, count: 4096)
        while block.withUnsafeBytes({ write(fd, $0.baseAddress, $0.count) }) > 0 {}
        #expect(errno == ENOSPC)
        var fs = statvfs()
        statvfs(path, &fs)
        #expect(fs.f_bavail == 0)
    }
}
