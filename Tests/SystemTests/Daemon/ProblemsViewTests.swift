import BoxSupport
import Glibc
import Testing

extension SystemTests.Daemon {
    /// The problems view on the real LCD (issue 25): a FAT32 stick with a misspelt key in a
    /// routine.toml and a file that is not audio, hot-plugged, imported on a push. The
    /// encoder's push opens the menu on *Problems*, the next the view; a detent a page. The
    /// pages drawn through the HD44780 over i2c (the smbus trace, decoded by the model) are
    /// the twin's frames for the same stick and controls, page for page.
    @Test func theProblemsViewOnTheLCDIsTheTwinsPageForPage() throws {
        let rig = try DaemonRig("problems")
        let counting = BoxStick.Routine(folder: "Counting", manifest: nil, parts: [("01 Count.wav", 2, 48_000)])
        let salsa = BoxStick.Routine(folder: "Salsa", manifest: "tilte = \"Salsa Basics\"\n",
                                     parts: [("01 Basic.wav", 2, 48_000)])
        let content = rig.directory + "/usb"
        try BoxStick.write([counting, salsa], to: content)
        try rig.writeText("this is not audio", to: content + "/Counting/02 Brokn.mp3")
        let stick = try USBStick(name: "problems-stick", megabytes: 48, content: content)

        try rig.start()
        let lcd = try #require(rig.lcd)
        var shown = try lcd.expectScreen("no routines", timeout: 30) { $0[0].hasPrefix("No routines") }
        let partition = try stick.plug(id: "problems1")
        try USBStick.helper("mount", partition, mediaRoot: rig.mediaRoot)
        // Out again whatever happens: the next test's stick must be the only one.
        defer {
            try? USBStick.helper("unmount", partition, mediaRoot: rig.mediaRoot)
            try? stick.yank(id: "problems1", partition: partition)
        }
        shown = try lcd.expectScreen("the offer", timeout: 20, after: shown.index) { $0 == ["2 routines      ", "Push to import  "] }
        try rig.panel.tap("select")
        shown = try lcd.expectScreen("the count", timeout: 120, after: shown.index) { $0[1] == "Menu: Problems  " }

        // Push: the menu on Problems; push: its first page; then the pages, a detent each.
        try rig.panel.tap("select")
        shown = try lcd.expectScreen("the menu on Problems", timeout: 10, after: shown.index) {
            $0.contains { $0.hasPrefix(">Problems") }
        }
        let menu = shown
        try rig.panel.tap("select")
        _ = try lcd.expectScreen("the first page", timeout: 10, after: shown.index) { $0[0].hasPrefix("1 of ") }
        let pages = 24
        for _ in 0..<pages {
            try rig.panel.turn(clockwise: true)
            Box.hold(milliseconds: 300)
        }
        Box.hold(milliseconds: 1_000)
        let seen = ScreenSequence.collapse(lcd.screens[menu.index...].map(\.rows))

        // The twin: the same stick imported at once, the same pushes and detents.
        let folder = rig.directory + "/twin"
        let binary = try #require(DaemonRig.binary)
        try BoxProcess.check(["/bin/mkdir", "-p", folder])
        // The board is 16x2, as the twin by default.
        let turns = (0..<pages).map { k in "\((20 + 3 * k) / 10).\((20 + 3 * k) % 10) turn +1" }
        try rig.writeText((["1.0 tap select", "1.5 tap select"] + turns + ["12.0 end"]).joined(separator: "\n") + "\n",
                          to: folder + "/problems.scenario")
        try BoxProcess.check([binary, "sim", "--stick", content, "--scenario", folder + "/problems.scenario",
                              "--frames", folder + "/frames.txt"], timeout: 300)
        let twin = ScreenSequence.parseFrameLog(try Box.read(folder + "/frames.txt"),
                                                columns: rig.profile.display.columns)
        // From the menu on Problems (the frame before the first page): the LCD passes through
        // half-drawn screens between two frames, which `mismatch` allows.
        let firstPage = try #require(twin.firstIndex { $0[0].hasPrefix("1 of ") }, "\(twin)")
        let expected = Array(twin[max(0, firstPage - 1)...])
        let start = try #require(seen.firstIndex(of: expected[0]), "no \(expected[0]) in \(seen)")
        let observed = Array(seen[start...])
        #expect(expected.count >= 3, "\(expected)")
        let mismatch = ScreenSequence.mismatch(observed: observed, expected: expected)
        #expect(mismatch == nil, "\(mismatch ?? "")")
    }
}
