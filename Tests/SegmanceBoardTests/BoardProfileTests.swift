import Foundation
import Testing
import SegmanceControls
import SegmanceCore
@testable import SegmanceBoard

@Suite(.tags(.integration)) struct BoardProfileTests {
    static let boardDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("board").path

    static func load(_ name: String) throws -> BoardProfile {
        let path = boardDirectory + "/" + name
        return try BoardProfile(parsing: try String(contentsOfFile: path, encoding: .utf8), file: "board/" + name)
    }

    @Test(arguments: ["pi-gpio.toml", "pi-overlays.toml", "sim-vm.toml"])
    func everyShippedProfileParses(name: String) throws {
        let profile = try Self.load(name)
        #expect(!profile.name.isEmpty)
        #expect([(16, 2), (20, 4)].contains { $0 == (profile.display.columns, profile.display.rows) })
        #expect(profile.gpio != nil || !profile.inputs.isEmpty)
    }

    @Test func thePiProfileGivesTheControlMapOfItsWiring() throws {
        let profile = try Self.load("pi-gpio.toml")
        let names: [String?] = (0..<54).map { "GPIO\($0)" }
        let chip = ChipDescription(path: "/dev/gpiochip0", name: "gpiochip0", label: "pinctrl-bcm2835", lineNames: names)
        let (found, offsets) = try profile.resolveGPIO(on: [chip], file: "board/pi-gpio.toml")
        #expect(found == chip)
        let map = profile.controlMap(offsets: offsets)
        #expect(map.buttons == [17: .play, 27: .prev, 22: .next, 23: .loop, 24: .select])
        #expect(map.encoder == EncoderLines(a: 5, b: 6, stepsPerDetent: .four, rest: .low))
        #expect(map.timing == ControlMap.Timing(debounce: 10_000_000, longPress: 600_000_000, doublePressWindow: 300_000_000))
        #expect(profile.display.address == 0x27 && profile.display.bus == 1)
        #expect(profile.inputs.first?.keys == ["KEY_B": "play"])
        #expect(profile.audio.periodFrames == 128 && profile.audio.periods == 3)
        // The headphone jack hands audio to the VideoCore ahead of its pointer: no rewinds.
        #expect(profile.audio.rewindGuardFrames == nil)
    }

    @Test func aRewindGuardTurnsOnDeepBufferScheduling() throws {
        let profile = try BoardProfile(parsing: Self.minimal + "[audio]\nperiod_frames = 1024\nperiods = 8\nrewind_guard_frames = 256\n",
                                       file: "b.toml")
        #expect(profile.audio.rewindGuardFrames == 256 && profile.audio.periodFrames == 1024)
    }

    @Test func theVMProfileResolvesOnGpioSim() throws {
        let profile = try Self.load("sim-vm.toml")
        let chip = ChipDescription(path: "/dev/gpiochip1", name: "gpiochip1", label: "gpio-sim.0-node0",
                                   lineNames: Array(repeating: nil, count: 8))
        let (_, offsets) = try profile.resolveGPIO(on: [chip], file: "board/sim-vm.toml")
        #expect(profile.controlMap(offsets: offsets).buttons == [0: .play, 1: .prev, 2: .next, 3: .loop, 4: .select])
        #expect(try profile.resolveI2CBus(among: ["/dev/i2c-0"], file: "board/sim-vm.toml") == "/dev/i2c-0")
        // snd-aloop under TCG: periods it keeps up with; the VM's slow sysfs writes: a longer debounce.
        #expect(profile.audio.periodFrames == 512 && profile.audio.periods == 4)
        #expect(profile.timing.debounce == 20_000_000)
        #expect(profile.inputs.map(\.name) == ["PCsensor FootSwitch"])
    }

    static let minimal = "[display]\nkind = \"terminal\"\n"

    /// The character ROM: A00 unless the profile says otherwise; LCDproc's ASCII.
    @Test func theROMIsA00ButForLCDproc() throws {
        let hd = try BoardProfile(parsing: "[display]\nkind = \"hd44780-i2c\"\nbus = 1\naddress = 0x27", file: "b.toml")
        #expect(hd.display.rom == "A00")
        let lcdproc = try BoardProfile(parsing: "[display]\nkind = \"lcdproc\"", file: "b.toml")
        #expect(lcdproc.display.rom == "ascii")
        let told = try BoardProfile(parsing: "[display]\nkind = \"hd44780-i2c\"\nbus = 1\naddress = 0x27\nrom = \"ascii\"",
                                    file: "b.toml")
        #expect(told.display.rom == "ascii")
    }

    @Test(arguments: [
        ("[display]\nkind = \"oled\"", "b.toml: display.kind: 'oled' is not one of hd44780-i2c, lcdproc, terminal"),
        ("[display]\ncolumns = 40\nrows = 2", "b.toml: display.columns: 40x2 is not a supported size (16x2, 20x4)"),
        ("[display]\nkind = \"hd44780-i2c\"\nbus = 1", "b.toml: display.address: must be a 7-bit I2C address, e.g. 0x27"),
        ("[display]\nkind = \"hd44780-i2c\"\naddress = 0x27", "b.toml: display.bus: is missing (the N of /dev/i2c-N)"),
        ("[display]\nkind = \"hd44780-i2c\"\nbus = 1\naddress = 0x27\nbackpack = \"x\"", "b.toml: display.backpack: 'x' is not one of pcf8574-common, pcf8574-lcdproc"),
        (minimal + "[gpio]\nbias = \"pull-up\"", "b.toml: gpio.chip: is missing"),
        (minimal + "[gpio]\nchip = \"c\"\nbias = \"up\"", "b.toml: gpio.bias: 'up' is not one of pull-up, pull-down, disable, as-is"),
        (minimal + "[gpio]\nchip = \"c\"\n[gpio.lines]\nstop = 3", "b.toml: gpio.lines.stop: unknown key (known: encoder_a, encoder_b, loop, next, play, prev, select)"),
        (minimal + "[gpio]\nchip = \"c\"\n[gpio.lines]\nplay = true", "b.toml: gpio.lines.play: must be a line name (\"GPIO17\") or offset (17)"),
        (minimal + "[gpio]\nchip = \"c\"\n[gpio.lines]\nencoder_a = 5", "b.toml: gpio.lines: an encoder needs both encoder_a and encoder_b"),
        (minimal + "[encoder]\nsteps_per_detent = 3", "b.toml: encoder.steps_per_detent: must be 1, 2 or 4, not 3"),
        (minimal + "[audio]\nformat = \"U8\"", "b.toml: audio.format: 'U8' is not one of S16_LE, S32_LE, FLOAT_LE"),
        (minimal + "[audio]\nrate = \"fast\"", "b.toml: audio.rate: must be a whole number"),
        (minimal + "[[input]]\nkeys = { KEY_B = \"play\" }", "b.toml: input[1].device: is missing"),
        ("volume = 3\n" + minimal, "b.toml: volume: unknown key (known: audio, display, encoder, gpio, input, name, timing)"),
        ("name = \"x\"", "b.toml: display: is missing"),
        (minimal + "volume = 3", "b.toml: display.volume: unknown key (known: address, backpack, bus, columns, host, kind, port, rom, rows)"),
        ("[display]\nkind = \"hd44780-i2c\"\nbus = 1\naddress = 0x27\nrom = \"A02\"", "b.toml: display.rom: 'A02' is not one of A00, ascii"),
    ] as [(String, String)])
    func badProfilesNameTheKey(text: String, message: String) {
        do {
            _ = try BoardProfile(parsing: text, file: "b.toml")
            Issue.record("accepted: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aSyntaxErrorGivesTheLine() {
        do {
            _ = try BoardProfile(parsing: "[display]\nkind = \"terminal\"\ncolumns = = 3\n", file: "b.toml")
            Issue.record("accepted")
        } catch {
            #expect(error.key == "line 3")
            #expect(error.reason.hasPrefix("TOML syntax error"))
        }
    }

    @Test func missingChipsLinesAndBusesListWhatExists() throws {
        let profile = try Self.load("pi-gpio.toml")
        let other = ChipDescription(path: "/dev/gpiochip4", name: "gpiochip4", label: "pinctrl-rp1", lineNames: ["GPIO0", nil, "GPIO2"])
        #expect(throws: BoardProfileError(file: "board/pi-gpio.toml", key: "gpio.chip",
                                          reason: "no chip 'pinctrl-bcm2835'; chips present: gpiochip4 (pinctrl-rp1)")) {
            try profile.resolveGPIO(on: [other], file: "board/pi-gpio.toml")
        }
        #expect(throws: BoardProfileError(file: "board/pi-gpio.toml", key: "gpio.chip", reason: "no chip 'pinctrl-bcm2835'; chips present: none")) {
            try profile.resolveGPIO(on: [], file: "board/pi-gpio.toml")
        }
        let small = ChipDescription(path: "/dev/gpiochip0", name: "gpiochip0", label: "pinctrl-bcm2835", lineNames: ["GPIO0", nil, "GPIO2"])
        #expect(throws: BoardProfileError(file: "board/pi-gpio.toml", key: "gpio.lines.encoder_a",
                                          reason: "no line named 'GPIO5' on gpiochip0; named lines: GPIO0, GPIO2")) {
            try profile.resolveGPIO(on: [small], file: "board/pi-gpio.toml")
        }
        #expect(throws: BoardProfileError(file: "board/pi-gpio.toml", key: "display.bus",
                                          reason: "/dev/i2c-1 does not exist; buses present: /dev/i2c-20, /dev/i2c-21")) {
            try profile.resolveI2CBus(among: ["/dev/i2c-20", "/dev/i2c-21"], file: "board/pi-gpio.toml")
        }
    }
}
