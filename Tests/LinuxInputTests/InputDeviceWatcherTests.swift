import Glibc
import SegmanceTestSupport
import Testing
@testable import LinuxInput

/// A temporary directory stands in for /dev/input; inotify on it is real. A node's name is
/// the file's content (see `nameFromContent`).
@Suite("Watching for devices by name", .tags(.integration))
struct InputDeviceWatcherTests {
    @Test func findsPresentDevicesAndFollowsPlugAndUnplug() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let pedal = dir.write("event3", text: "PCsensor FootSwitch")
        dir.write("event0", text: "AT Translated Set 2 keyboard")
        let watcher = try InputDeviceWatcher(names: ["PCsensor FootSwitch", "rotary@11"], directory: dir.path,
                                             nameReader: nameFromContent)

        #expect(watcher.scan() == [.appeared(InputDevice(path: pedal, name: "PCsensor FootSwitch"))])
        #expect(try watcher.readChanges().isEmpty) // creations before the scan are already known

        // A node created whole (as devtmpfs does) appears; an unconfigured one does not.
        let staging = TemporaryDirectory()
        defer { staging.remove() }
        #expect(rename(staging.write("node", text: "rotary@11"), dir.file("event12")) == 0)
        dir.write("event4", text: "Logitech USB Receiver")
        let rotary = InputDevice(path: dir.file("event12"), name: "rotary@11")
        #expect(try watcher.readChanges() == [.appeared(rotary)])
        #expect(watcher.devices.map(\.path) == [pedal, rotary.path])

        // Unplugged: the pedal goes; removing an unconfigured node changes nothing.
        #expect(unlink(pedal) == 0)
        #expect(unlink(dir.file("event4")) == 0)
        #expect(try watcher.readChanges() == [.disappeared(InputDevice(path: pedal, name: "PCsensor FootSwitch"))])
        #expect(watcher.devices == [rotary])

        // Plugged back in.
        dir.write("event3", text: "PCsensor FootSwitch")
        #expect(try watcher.readChanges() == [.appeared(InputDevice(path: pedal, name: "PCsensor FootSwitch"))])
    }

    @Test func aNodeUnreadableAtCreationAppearsWhenItsAttributesChange() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        // The node name reader sees nothing until the node is "ready", as before udev's chmod.
        let watcher = try InputDeviceWatcher(names: ["Presenter"], directory: dir.path, nameReader: nameFromContent)
        #expect(watcher.scan().isEmpty)
        dir.write("event5", [])
        #expect(try watcher.readChanges().isEmpty)

        let fd = open(dir.file("event5"), O_WRONLY | O_TRUNC)
        #expect(write(fd, "Presenter", 9) == 9)
        close(fd)
        #expect(try watcher.readChanges().isEmpty) // writes are not watched
        #expect(chmod(dir.file("event5"), 0o660) == 0)
        #expect(try watcher.readChanges() == [.appeared(InputDevice(path: dir.file("event5"), name: "Presenter"))])
    }

    @Test func theDirectoryMayAppearAndVanish() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let input = dir.file("input")
        let watcher = try InputDeviceWatcher(names: ["Foot"], directory: input, nameReader: nameFromContent)
        #expect(watcher.scan().isEmpty)

        // The first input device: the directory and its node arrive together.
        #expect(mkdir(input, 0o755) == 0)
        let node = input + "/event0"
        let fd = open(node, O_CREAT | O_WRONLY, 0o644)
        #expect(write(fd, "Foot", 4) == 4)
        close(fd)
        #expect(try watcher.readChanges() == [.appeared(InputDevice(path: node, name: "Foot"))])

        // The last one goes and the directory with it.
        #expect(unlink(node) == 0)
        #expect(rmdir(input) == 0)
        #expect(try watcher.readChanges() == [.disappeared(InputDevice(path: node, name: "Foot"))])

        // And again: the watch on the recreated directory works.
        #expect(mkdir(input, 0o755) == 0)
        #expect(try watcher.readChanges().isEmpty)
        let again = open(node, O_CREAT | O_WRONLY, 0o644)
        #expect(write(again, "Foot", 4) == 4)
        close(again)
        #expect(try watcher.readChanges() == [.appeared(InputDevice(path: node, name: "Foot"))])
    }

    @Test func waitReturnsWhatInotifyReported() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        let watcher = try InputDeviceWatcher(names: ["Foot"], directory: dir.path, nameReader: nameFromContent)
        _ = watcher.scan()
        #expect(try watcher.wait(timeoutNanoseconds: 0).isEmpty)
        dir.write("event9", text: "Foot")
        // inotify queues the event during the creating call, so the fd is readable already.
        #expect(try watcher.wait(timeoutNanoseconds: nil)
            == [.appeared(InputDevice(path: dir.file("event9"), name: "Foot"))])
    }

    @Test func aParentThatDoesNotExistIsAnError() throws {
        var caught: InputError?
        do {
            _ = try InputDeviceWatcher(names: ["Foot"], directory: "/nonexistent-segmance/input")
        } catch let thrown as InputError { caught = thrown }
        let error = try #require(caught)
        #expect(error == .system(function: "inotify_add_watch", path: "/nonexistent-segmance", errno: ENOENT))
    }
}

@Suite("Input inventory", .tags(.integration))
struct InputInventoryTests {
    @Test func listsNodesInNumberOrderWithTheirNames() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        dir.write("event10", text: "gpio-keys")
        dir.write("event2", text: "PCsensor FootSwitch")
        dir.write("event1", []) // no name: left out
        dir.write("mouse0", text: "not an event node")
        #expect(InputInventory.devices(in: dir.path, nameReader: nameFromContent) == [
            InputDevice(path: dir.file("event2"), name: "PCsensor FootSwitch"),
            InputDevice(path: dir.file("event10"), name: "gpio-keys"),
        ])
    }

    @Test func aMissingNameListsTheDevicesFound() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        dir.write("event0", text: "Keyboard")
        dir.write("event1", text: "Mouse")
        var caught: InputError?
        do {
            _ = try InputInventory.devices(named: ["PCsensor FootSwitch", "Presenter"], in: dir.path,
                                           nameReader: nameFromContent)
        } catch let thrown as InputError { caught = thrown }
        let error = try #require(caught)
        #expect(error == .noDevice(named: ["PCsensor FootSwitch", "Presenter"], found: [
            InputDevice(path: dir.file("event0"), name: "Keyboard"),
            InputDevice(path: dir.file("event1"), name: "Mouse"),
        ]))
        #expect(error.description == "no input device named \"PCsensor FootSwitch\" or \"Presenter\"; "
            + "devices present: \(dir.file("event0")) \"Keyboard\", \(dir.file("event1")) \"Mouse\"")

        #expect(try InputInventory.devices(named: ["Mouse"], in: dir.path, nameReader: nameFromContent)
            == [InputDevice(path: dir.file("event1"), name: "Mouse")])
    }

    @Test func noDevicesAtAll() {
        let error = InputError.noDevice(named: ["Foot"], found: [])
        #expect(error.description == "no input device named \"Foot\"; devices present: none")
        #expect(InputInventory.devices(in: "/nonexistent-segmance/input").isEmpty)
    }

    @Test func i2cBusesWithTheirAdapterNames() {
        let dev = TemporaryDirectory(), sys = TemporaryDirectory()
        defer { dev.remove(); sys.remove() }
        for name in ["i2c-10", "i2c-1", "i2c-2", "i2c-x", "gpiochip0"] { dev.write(name, []) }
        #expect(mkdir(sys.file("i2c-1"), 0o755) == 0)
        sys.write("i2c-1/name", text: "bcm2835 (i2c@7e804000)\n")
        #expect(mkdir(sys.file("i2c-10"), 0o755) == 0)
        sys.write("i2c-10/name", text: "i2c-22-mux (chan_id 1)\n")
        #expect(I2CInventory.buses(devDirectory: dev.path, sysDirectory: sys.path) == [
            I2CAdapter(path: dev.file("i2c-1"), number: 1, name: "bcm2835 (i2c@7e804000)"),
            I2CAdapter(path: dev.file("i2c-2"), number: 2, name: nil),
            I2CAdapter(path: dev.file("i2c-10"), number: 10, name: "i2c-22-mux (chan_id 1)"),
        ])
    }
}
