import BoxSupport
import Glibc
import Testing

extension SystemTests.Daemon {
    /// A FAT32 stick in the stick format, hot-plugged and mounted by deploy/segmance-stick
    /// under the daemon's media root: offered on the LCD, imported on a push of the encoder
    /// switch. Pulled out while the import reads its long part — before systemd would unmount
    /// it, so the dead mount still answers `stat` and only reads fail — the daemon stops that
    /// routine by itself: the library is exactly as before and the LCD and the log say why.
    /// Plugged in again, it imports whole, and its first part plays: what the loopback card
    /// captures is the audio the library stored.
    @Test func aStickIsImportedOnAPushAndOnePulledOutLeavesTheLibraryAsItWas() throws {
        let kept = BoxStick.Routine(folder: "Kept", manifest: "countdown = 0\n", parts: [("01 Kept.wav", 2, 48_000)])
        let rig = try DaemonRig("stick", routines: [kept])
        // 10 s resampled from 44.1 kHz, then 3 minutes (34 MB) whose reading the yank interrupts.
        let routine = BoxStick.Routine(folder: "Stick Routine", manifest: "title = \"Stick Routine\"\ncountdown = 0\n",
                                       parts: [("01 Short.wav", 10, 44_100), ("02 Long.wav", 180, 48_000)], repeatAfter: 10)
        try BoxStick.write([routine], to: rig.directory + "/usb")
        let stick = try USBStick(name: "daemon-stick", megabytes: 80, content: rig.directory + "/usb")
        let list = ["library", "list", "--library", rig.library]
        let check = ["library", "check", "--library", rig.library]
        let listBefore = try rig.segmance(list), checkBefore = try rig.segmance(check)
        let media = rig.library + "/media"
        let mediaBefore = try Self.mediaFiles(in: media)

        try rig.start()
        let lcd = try #require(rig.lcd), daemon = try #require(rig.daemon), capture = try #require(rig.capture)
        var shown = try lcd.expectScreen("Kept, stopped", timeout: 30) { $0[0].hasPrefix("■ 1/1 Kept") }

        // Plugged in, mounted: found, and offered.
        var partition = try stick.plug(id: "stick1")
        try USBStick.helper("mount", partition, mediaRoot: rig.mediaRoot)
        shown = try lcd.expectScreen("the stick found", timeout: 20, after: shown.index) { $0 == ["Stick found     ", "1 routine       "] }
        shown = try lcd.expectScreen("the offer", timeout: 20, after: shown.index) { $0 == ["Stick: 1 routine", "Push to import  "] }

        // Pushed: the import starts. Once the short part is stored, the long one is being read: pull it out.
        try rig.panel.tap("select")
        shown = try lcd.expectScreen("the import's progress", timeout: 10, after: shown.index) { $0[0].hasPrefix("Import 1/1") }
        _ = try Self.waitForMedia(in: media, count: mediaBefore.count + 1, timeout: 120) // the short part's
        try stick.yank(id: "stick1", partition: partition)
        let why = try daemon.expectLine(containing: "import: Stick Routine not imported: ", timeout: 60)
        #expect(why.line.text == "import: Stick Routine not imported: the stick went away during the import",
                "the daemon did not stop the import because the stick went away: \(daemon.text.suffix(8))")
        // systemd's ExecStop, when the device unit goes (BindsTo): the dead mount goes too.
        try USBStick.helper("unmount", partition, mediaRoot: rig.mediaRoot)
        shown = try lcd.expectScreen("why the import stopped", timeout: 30, after: shown.index) { $0 == ["!Import stopped ", "stick removed   "] }
        #expect(!daemon.text.contains { $0.contains("Input/output error") }, "a part was failed as if its file were bad")
        #expect(try rig.segmance(list) == listBefore)
        #expect(try rig.segmance(check) == checkBefore)
        // The short part's audio, stored before the yank, went with its routine.
        #expect(try Self.mediaFiles(in: media) == mediaBefore)

        // Plugged in again: the whole routine is imported.
        partition = try stick.plug(id: "stick2")
        try USBStick.helper("mount", partition, mediaRoot: rig.mediaRoot)
        shown = try lcd.expectScreen("the offer again", timeout: 30, after: shown.index) { $0 == ["Stick: 1 routine", "Push to import  "] }
        try rig.panel.tap("select")
        shown = try lcd.expectScreen("the import done", timeout: 180, after: shown.index) { $0 == ["Import done     ", "1 new           "] }
        try daemon.expectLine(containing: "import: Stick Routine: added", timeout: 5)
        let listAfter = try rig.segmance(list)
        #expect(listAfter.count == 2 && listAfter.contains { $0.hasPrefix("Stick Routine  (2 parts, 3:10") }, "\(listAfter)")
        #expect(try rig.segmance(check).last == "The library \(rig.library) is whole: 2 routines.")

        // Playable: the next routine (a long NEXT), PLAY: the stored audio comes out of the card.
        try rig.panel.tap("next", milliseconds: 900)
        shown = try lcd.expectScreen("Stick Routine, stopped", timeout: 10, after: shown.index) { $0[0].hasPrefix("■ 1/2 Short") }
        // The stored audio to compare with, read before PLAY: while the part plays the test
        // only listens (a process started in the VM then, under TCG, competes with the
        // render thread for the two emulated CPUs; CI: an underrun while it ran).
        let shownPart = try rig.segmance(["library", "show", "Stick Routine", "--library", rig.library])
        let line = try #require(shownPart.first { $0.hasPrefix("  1. Short") }, "\(shownPart)")
        let hashes = line.split(separator: " ").map(String.init).filter { $0.count == 64 && $0.allSatisfy(\.isHexDigit) }
        let hash = try #require(hashes.first, "no media hash in \(line)")
        let pcm = try Self.pcm(media + "/" + hash + ".pcm")
        let silentUntil = capture.frames
        // What the performer hears from here on must be clean. Before (silence, while the
        // emulated USB stick is read) the VM itself can stall: qemu's usb-storage emulation
        // holds the guest's vCPUs under host load, which no guest thread priority can help;
        // an underrun there is reported, not failed.
        let playing = daemon.text.count
        for line in rig.audioTrouble { print("system: stick: during the emulated USB import (silent output): \(line)") }
        try rig.panel.tap("play")
        shown = try lcd.expectScreen("Stick Routine playing", timeout: 10, after: shown.index) { $0[0].hasPrefix("▶ 1/2 Short") }
        let onset = try #require(capture.waitForSound(from: silentUntil, timeout: 10), "no sound after PLAY")
        _ = try #require(capture.waitForSound(from: onset + 96_000, timeout: 10))
        // After the 5 ms ramp-in, 1.5 s of the capture is the stored PCM from the part's start
        // at the volume (80 %: a gain of 0.64; within an LSB of rounding the product here).
        let heard = capture.samples((onset + 480)..<(onset + 480 + 72_000))
        let at = (0..<8).first { shift in
            let from = (480 + shift - 1) * 2
            guard from >= 0 else { return false }
            return heard.indices.allSatisfy { abs(Int(heard[$0]) - Int((Double(pcm[from + $0]) * 0.64).rounded())) <= 1 }
        }
        #expect(at != nil, "the captured audio is not the stored part 1 of Stick Routine at 80 %")
        try rig.panel.tap("play")
        shown = try lcd.expectScreen("paused", timeout: 10, after: shown.index) { $0[0].hasPrefix("‖ 1/2 Short") }
        // The render thread's reports wake the control loop, which logs them at once; a
        // period (11 ms) and a margin later, every underrun while playing is in the log.
        Box.hold(milliseconds: 100)
        let whilePlaying = rig.audioTrouble(fromLine: playing), paused = daemon.text.count
        let logSincePlay = daemon.text[min(playing, daemon.text.count)...].joined(separator: "\n")
        #expect(whilePlaying.isEmpty, "underruns while the stored part played: \(whilePlaying); the daemon's log from PLAY on:\n\(logSincePlay)")
        // Unplugged while paused (silent output): qemu's usb-storage removal can hold the
        // vCPUs as its plugging does (CI: an underrun here, after the pause was shown).
        try USBStick.helper("unmount", partition, mediaRoot: rig.mediaRoot)
        try stick.yank(id: "stick2", partition: partition)
        try rig.stop()
        for line in rig.audioTrouble(fromLine: paused) { print("system: stick: while the emulated USB stick was removed (paused, silent output): \(line)") }
    }

    /// The media files (complete ones: `<hash>.pcm`), sorted by the time they appeared.
    static func mediaFiles(in folder: String) throws -> [String] {
        guard let dir = opendir(folder) else { throw BoxError("cannot list \(folder)") }
        defer { closedir(dir) }
        var found: [(name: String, time: Int)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            guard name.hasSuffix(".pcm"), !name.hasPrefix("tmp-") else { continue }
            var info = stat()
            stat(folder + "/" + name, &info)
            found.append((name, Int(info.st_ctim.tv_sec) * 1_000_000_000 + Int(info.st_ctim.tv_nsec)))
        }
        return found.sorted { $0.time < $1.time }.map(\.name)
    }

    /// Waits until `count` media files are complete; returns them.
    static func waitForMedia(in folder: String, count: Int, timeout: Double) throws -> [String] {
        let deadline = Box.now() + Int64(timeout * 1e9)
        while true {
            let files = try mediaFiles(in: folder)
            if files.count >= count { return files }
            guard Box.now() < deadline else { throw BoxError("\(folder) holds \(files) after \(timeout) s, not \(count) media files") }
            Box.hold(milliseconds: 5)
        }
    }

    /// A stored PCM file's samples.
    static func pcm(_ path: String) throws -> [Int16] {
        guard let file = fopen(path, "rb") else { throw BoxError("cannot open \(path)") }
        defer { fclose(file) }
        fseek(file, 0, SEEK_END)
        let bytes = ftell(file)
        fseek(file, 0, SEEK_SET)
        var samples = [Int16](repeating: 0, count: bytes / 2)
        _ = samples.withUnsafeMutableBytes { fread($0.baseAddress, 1, bytes, file) }
        return samples
    }
}
