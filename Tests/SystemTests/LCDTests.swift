import CharacterDisplay
import LinuxI2C
import LinuxInput
import SegmanceBoard
import SegmanceCore
import SegmanceScreen
import Testing

extension SystemTests {
    /// The HD44780 driver over the LinuxI2C bus (i2c-dev) to i2c-stub at 0x27, as
    /// board/sim-vm.toml names it. i2c-stub acknowledges send-byte writes but keeps nothing;
    /// the kernel's smbus_write trace event records every byte, SMBusTrace reads them back,
    /// and the HD44780 model shows the screen they draw.
    @Suite(.tags(.system)) struct LCD {
        static let tracing = "/sys/kernel/tracing"

        struct Rig {
            let profile: BoardProfile
            let bus: Int
            let address: Int
            let pinMap: PCF8574PinMap
            let display: HD44780Display
            /// The same driver on a recording bus: the bytes the driver means to send.
            let recorder = RecordingI2CBus()
            let twin: HD44780Display

            init() throws {
                let file = Box.boardDirectory + "/sim-vm.toml"
                profile = try BoardProfile(parsing: try Box.read(file), file: file)
                let path = try profile.resolveI2CBus(among: LinuxI2CBus.buses(), file: file)
                let stub = I2CInventory.buses().first { $0.path == path }
                #expect(stub?.name == "SMBus stub driver", "the profile's bus \(path) is not i2c-stub: \(I2CInventory.buses())")
                bus = try #require(profile.display.bus)
                address = try #require(profile.display.address)
                pinMap = try #require(PCF8574PinMap.named[profile.display.backpack ?? ""])
                let linux = try LinuxI2CBus(bus: bus, address: UInt8(address))
                display = HD44780Display(bus: linux, pinMap: pinMap, columns: profile.display.columns,
                                         rows: profile.display.rows)
                twin = HD44780Display(bus: recorder, pinMap: pinMap, columns: profile.display.columns,
                                      rows: profile.display.rows, delay: NoDelay())
            }

            /// Shows `frame` on both displays and returns the bytes the kernel traced.
            func show(_ frame: Frame) throws -> [UInt8] {
                try Box.truncate(LCD.tracing + "/trace") // empties the ring buffer
                recorder.clear()
                try display.show(frame)
                try twin.show(frame)
                let writes = try SMBusTrace.parse(try Box.read(LCD.tracing + "/trace"))
                return SMBusTrace.sentBytes(writes, adapter: bus, address: address)
            }
        }

        final class NoDelay: Delay {
            func wait(microseconds: Int) {}
        }

        /// What the appliance shows while an A–B loop plays.
        static func playingFrame(_ profile: BoardProfile, position: FramePosition) -> Frame {
            var state = PlayerState(routines: [Routine(title: "Street Jam", parts: [
                Part(title: "Groove", audio: AudioReference("a"), length: 48_000 * 32),
                Part(title: "Finale", audio: AudioReference("b"), length: 48_000 * 24)])])
            state.transport = .playing
            state.loop = .ab(ABLoop(a: 48_000 * 8, b: 48_000 * 16))
            state.position = position
            return Screen.render(state, columns: profile.display.columns, rows: profile.display.rows)
        }

        @Test func theTracedBytesDrawTheRenderedFrame() throws {
            let rig = try Rig()
            let frame = Self.playingFrame(rig.profile, position: 48_000 * 9)
            let sent = try rig.show(frame)
            // Exactly the bytes the driver produced, in order: nothing lost, nothing added.
            #expect(sent == rig.recorder.bytes)
            var model = HD44780Model(pinMap: rig.pinMap, columns: frame.columns, rows: frame.rows)
            model.receive(sent)
            #expect(model.fourBit && model.twoLines && model.displayOn && model.backlight)
            #expect(model.screen == (0..<frame.rows).map { frame.row($0) },
                    "LCD shows \(model.screen.map { String(decoding: $0, as: UTF8.self) })")
            #expect(model.glyphs == Glyph.allCases.map(\.pattern))
        }

        @Test func theNextFrameSendsOnlyTheChangedCells() throws {
            let rig = try Rig()
            var model = HD44780Model(pinMap: rig.pinMap, columns: rig.profile.display.columns,
                                     rows: rig.profile.display.rows)
            let first = Self.playingFrame(rig.profile, position: 48_000 * 9)
            model.receive(try rig.show(first))
            let second = Self.playingFrame(rig.profile, position: 48_000 * 10)
            #expect(first != second)
            let sent = try rig.show(second)
            #expect(sent == rig.recorder.bytes)
            // A changed clock is a run of a few cells, not a redraw.
            #expect(!sent.isEmpty && sent.count < 4 * 2 * rig.profile.display.columns, "\(sent.count) bytes")
            model.receive(sent)
            #expect(model.screen == (0..<second.rows).map { second.row($0) })
        }
    }
}
