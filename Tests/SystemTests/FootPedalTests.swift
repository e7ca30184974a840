import Glibc
import LinuxInput
import SegmanceBoard
import SegmanceControls
import SegmanceCore
import SegmanceInput
import Testing

extension SystemTests {
    /// LinuxInput's InputDeviceWatcher and EvdevDevice against a real evdev node: a uinput
    /// device standing in for the USB foot pedal of board/pi-gpio.toml, plugged in, pressed,
    /// and pulled out while held.
    @Suite(.tags(.system)) struct FootPedal {
        static let keyB: UInt16 = 48

        /// The pedal's entry in the Pi profile: its device name and key map.
        static func pedalEntry() throws -> (name: String, keyMap: KeyMap) {
            let file = Box.boardDirectory + "/pi-gpio.toml"
            let profile = try BoardProfile(parsing: try Box.read(file), file: file)
            let pedal = try #require(profile.inputs.first { $0.keys.values.contains("play") && $0.name.contains("Foot") })
            return (pedal.name, try KeyMap(keyNames: pedal.keys, axisNames: pedal.axes))
        }

        /// The watcher's next changes, waiting on inotify.
        func changes(_ watcher: InputDeviceWatcher) throws -> [InputDeviceChange] {
            let changes = try watcher.wait(timeoutNanoseconds: 10_000_000_000)
            #expect(!changes.isEmpty, "no change of \(watcher.names) in 10 s")
            return changes
        }

        /// The events the device has, waiting on its descriptor.
        func events(_ device: EvdevDevice) throws -> [InputEvent] {
            var entry = pollfd(fd: device.fileDescriptor, events: Int16(POLLIN), revents: 0)
            #expect(poll(&entry, 1, 10_000) == 1, "\(device.path) has no events")
            return try device.readEvents()
        }

        @Test func aPedalPluggedInPressedAndPulledOutWhileHeld() throws {
            let (name, keyMap) = try Self.pedalEntry()
            let watcher = try InputDeviceWatcher(names: [name])
            #expect(watcher.scan().isEmpty)

            // Plugged in: the watcher sees the node appear, by name.
            var pedal: UInputDevice? = try UInputDevice(name: name, vendor: 0x0C45, product: 0x7403, keys: [Self.keyB])
            let appeared = try changes(watcher)
            guard case .appeared(let node)? = appeared.first, appeared.count == 1 else {
                Issue.record("expected one device to appear, got \(appeared)")
                return
            }
            #expect(node.name == name && node.path.hasPrefix("/dev/input/event"))
            let device = try EvdevDevice(path: node.path)
            #expect(device.name == name)
            #expect(device.monotonicTimestamps)
            try device.grab()

            var inputs = DriverInputs(controls: Controls(map: ControlMap(buttons: [:])))
            try inputs.addDevice(node.path, keyMap: keyMap)

            // A tap: play.
            let before = Box.now()
            try pedal?.key(Self.keyB, down: true)
            var raw = try events(device)
            try pedal?.key(Self.keyB, down: false)
            raw += try events(device)
            #expect(raw.filter { $0.type == InputEvent.key }.map(\.value) == [1, 0])
            #expect(raw.allSatisfy { (before...Box.now()).contains($0.timestampNanoseconds) },
                    "evdev timestamps are not on CLOCK_MONOTONIC")
            #expect(inputs.evdev(node.path, raw).map(\.event) == [.buttonPressed(.play)])

            // Held past a long press, then pulled out while still down.
            try pedal?.key(Self.keyB, down: true)
            var held = inputs.evdev(node.path, try events(device))
            #expect(try device.pressedKeys() == [Self.keyB])
            Box.hold(milliseconds: 700)
            held += inputs.advance(to: Box.now())
            #expect(held.map(\.event) == [.buttonLongPressed(.play)])
            #expect(inputs.controls.isPressed(.play))

            pedal = nil
            #expect(try changes(watcher) == [.disappeared(node)])
            var caught: InputError?
            do { _ = try device.readEvents() } catch let thrown as InputError { caught = thrown }
            let error = try #require(caught)
            #expect(error.isDisconnect, "\(error)")
            // The release the pedal never sent: nothing stays pressed.
            #expect(inputs.removeDevice(node.path, at: Box.now()).isEmpty)
            #expect(!inputs.controls.isPressed(.play))

            // Plugged in again: found again.
            let again = try UInputDevice(name: name, vendor: 0x0C45, product: 0x7403, keys: [Self.keyB])
            let back = try changes(watcher)
            #expect(back.count == 1 && back.allSatisfy { if case .appeared(let d) = $0 { d.name == name } else { false } })
            again.unplug()
            #expect(try changes(watcher).count == 1)
        }
    }
}
