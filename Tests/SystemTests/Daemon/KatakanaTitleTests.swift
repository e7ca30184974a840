import BoxSupport
import Glibc
import SegmanceCore
import SegmanceScreen
import Testing

extension SystemTests.Daemon {
    /// A routine titled in hiragana, on the box's LCD through the real i2c path: the daemon
    /// writes the A00 ROM's half-width katakana (board/sim-vm.toml's ROM), the smbus trace
    /// decoded by the HD44780 model shows `ﾎﾞﾝｵﾄﾞﾘ`, and each screen is the twin's frame.
    @Test func aKatakanaTitleIsDrawnOnTheLCDAsTheTwinDrawsIt() throws {
        let routine = BoxStick.Routine(folder: "Bon", manifest: "title = \"ぼんおどり\"\ncountdown = 0\n",
                                       parts: [("01 Odori.wav", 5, 48_000)])
        let rig = try DaemonRig("katakana", routines: [routine])
        try rig.start()
        defer { try? rig.stop() }
        let lcd = try #require(rig.lcd)
        #expect(rig.profile.display.rom == "A00")
        // What the twin renders: the part stopped, then the routine's title in place of the clock.
        var state = PlayerState(routines: [Routine(title: "ぼんおどり", parts: [
            Part(title: "Odori", audio: AudioReference("a"), length: 5 * 48_000)])])
        let stopped = Screen.render(state, columns: 16, rows: 2, rom: .a00).text
        state.titleShownUntil = 1
        let titled = Screen.render(state, columns: 16, rows: 2, rom: .a00).text
        #expect(titled[1] == "ﾎﾞﾝｵﾄﾞﾘ         ")

        let shown = try lcd.expectScreen("part 1 stopped", timeout: 30) { $0 == stopped }
        // The encoder's long push: the routine's title for 3 s.
        try rig.panel.press("select")
        Box.hold(milliseconds: 900)
        try rig.panel.release("select")
        // The model's cells print as half-width katakana only when they are 0xA1–0xDF.
        try lcd.expectScreen("the katakana title", timeout: 10, after: shown.index) { $0 == titled }
    }
}
