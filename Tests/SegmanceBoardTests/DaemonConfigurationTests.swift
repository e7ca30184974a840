import Testing
@testable import SegmanceBoard

@Suite(.tags(.unit)) struct DaemonConfigurationTests {
    @Test func relativePathsAreFromTheConfigurationsFolder() throws {
        let c = try DaemonConfiguration(parsing: """
            board = "board/sim-vm.toml"
            library = "lib"
            media_root = "/media/sticks"
            stick_status = "status"
            auto_import = true
            realtime_priority = 0
            """, file: "/etc/segmance/segmance.toml")
        #expect(c == DaemonConfiguration(board: "/etc/segmance/board/sim-vm.toml", library: "/etc/segmance/lib",
                                         mediaRoot: "/media/sticks", autoImport: true, realtimePriority: 0,
                                         stickStatus: "/etc/segmance/status"))
    }

    @Test func onlyTheBoardIsRequired() throws {
        let c = try DaemonConfiguration(parsing: "board = \"/usr/share/segmance/board/pi-gpio.toml\"", file: "s.toml")
        #expect(c == DaemonConfiguration(board: "/usr/share/segmance/board/pi-gpio.toml"))
        #expect(c.library == "/var/lib/segmance" && c.mediaRoot == "/media/segmance" && c.stickStatus == "/run/segmance-stick")
        #expect(c.realtimePriority == 70 && !c.autoImport)
        #expect(c.controlPriority == 0)
        #expect(c.startVolumeMaximum == 70)
    }

    /// The most volume the box starts at, from `start_volume_max`.
    @Test(arguments: [("start_volume_max = 50", 50), ("start_volume_max = 100", 100), ("start_volume_max = 0", 0)])
    func theStartVolumeMaximumIsConfigured(text: String, maximum: Int) throws {
        let c = try DaemonConfiguration(parsing: "board = \"b.toml\"\n" + text, file: "s.toml")
        #expect(c.startVolumeMaximum == maximum)
    }

    /// The control loop at normal priority when left out, SCHED_FIFO below the render thread
    /// when set; a priority at or above the render thread's is refused.
    @Test(arguments: [
        ("", 0), ("realtime_priority = 0", 0), ("realtime_priority = 1", 0), ("realtime_priority = 10", 0),
        ("control_priority = 50", 50), ("realtime_priority = 10\ncontrol_priority = 9", 9),
        ("control_priority = 69", 69), ("control_priority = 0", 0), ("realtime_priority = 0\ncontrol_priority = 0", 0),
    ])
    func theControlLoopRunsBelowTheRenderThread(text: String, priority: Int) throws {
        let c = try DaemonConfiguration(parsing: "board = \"b.toml\"\n" + text, file: "s.toml")
        #expect(c.controlPriority == priority)
    }

    @Test(arguments: [
        ("library = \"/x\"", "s.toml: board: is missing (the board profile to use, e.g. \"/usr/share/segmance/board/pi-gpio.toml\")"),
        ("board = \"b.toml\"\nrealtime_priority = 120", "s.toml: realtime_priority: must be 0 (normal scheduling) or a SCHED_FIFO priority 1...99, not 120"),
        ("board = \"b.toml\"\nauto_import = \"yes\"", "s.toml: auto_import: must be true or false"),
        ("board = \"b.toml\"\ncontrol_priority = 70", "s.toml: control_priority: must be 0 (normal scheduling) or a SCHED_FIFO priority 1...69, below realtime_priority (70), not 70"),
        ("board = \"b.toml\"\nrealtime_priority = 0\ncontrol_priority = 5", "s.toml: control_priority: must be 0 (normal scheduling) while realtime_priority is 0"),
        ("board = \"b.toml\"\nperiod = 128", "s.toml: period: unknown key (known: auto_import, board, control_priority, library, media_root, realtime_priority, start_volume_max, stick_status)"),
        ("board = \"b.toml\"\nstart_volume_max = 101", "s.toml: start_volume_max: must be a volume in percent, 0...100, not 101"),
        ("board = ", "s.toml: line 1: TOML syntax error"),
    ])
    func badConfigurationsNameTheKey(text: String, message: String) {
        do {
            _ = try DaemonConfiguration(parsing: text, file: "s.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description.hasPrefix(message))
        }
    }
}
