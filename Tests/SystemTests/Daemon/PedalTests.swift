import BoxSupport
import Testing

extension SystemTests.Daemon {
    /// A uinput device named as board/sim-vm.toml's [[input]] stands in for a USB foot
    /// pedal: plugged in while the daemon runs, it is found (inotify), its key plays and
    /// pauses, and pulled out it is let go.
    @Test func aFootPedalPlaysAndPauses() throws {
        let routine = BoxStick.Routine(folder: "Pedal", manifest: "countdown = 0\n", parts: [("01 Pedal.wav", 20, 48_000)])
        let rig = try DaemonRig("pedal", routines: [routine])
        let entry = try #require(rig.profile.inputs.first { $0.keys.values.contains("play") }, "no pedal in \(rig.board)")
        let key = try #require(entry.keys.first { $0.value == "play" }?.key)
        #expect(key == "KEY_B")
        let keyB: UInt16 = 48
        try rig.start()
        let lcd = try #require(rig.lcd), daemon = try #require(rig.daemon), capture = try #require(rig.capture)
        var shown = try lcd.expectScreen("Pedal, stopped", timeout: 30) { $0[0].hasPrefix("■ 1/1 Pedal") }

        var pedal: UInputDevice? = try UInputDevice(name: entry.name, vendor: 0x0C45, product: 0x7403, keys: [keyB])
        let found = try daemon.expectLine(containing: "input: \"\(entry.name)\" at /dev/input/event", timeout: 10)

        let silentUntil = capture.frames
        try pedal?.key(keyB, down: true)
        Box.hold(milliseconds: 80)
        try pedal?.key(keyB, down: false)
        shown = try lcd.expectScreen("playing", timeout: 10, after: shown.index) { $0[0].hasPrefix("▶ 1/1 Pedal") }
        try daemon.expectLine(containing: "control: press play at part 1 frame 0 (stopped)", timeout: 5, after: found.index)
        let sound = try #require(capture.waitForSound(from: silentUntil, timeout: 10), "no sound after the pedal")

        try pedal?.key(keyB, down: true)
        Box.hold(milliseconds: 80)
        try pedal?.key(keyB, down: false)
        shown = try lcd.expectScreen("paused", timeout: 10, after: shown.index) { $0[0].hasPrefix("‖ 1/1 Pedal") }
        let paused = try daemon.expectLine(containing: "control: press play", timeout: 5, after: found.index + 2)
        #expect(paused.line.text.hasSuffix("(playing)"))
        #expect(capture.waitForSilence(from: sound, length: 48_000, timeout: 10) != nil, "still sound after the pedal paused")

        pedal = nil
        let gone = try daemon.expectLine(containing: " is gone", timeout: 10, after: found.index)
        #expect(gone.line.text.hasPrefix("input: \"\(entry.name)\" at /dev/input/event"))
        try rig.stop()
        #expect(rig.audioTrouble.isEmpty, "\(rig.audioTrouble)")
    }
}
