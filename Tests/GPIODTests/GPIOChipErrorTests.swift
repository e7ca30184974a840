import Glibc
import SegmanceTestSupport
import Testing
@testable import GPIOD

@Suite("Opening chips that are not there", .tags(.integration))
struct GPIOChipErrorTests {
    @Test func missingPathNamesTheCallAndTheErrno() throws {
        var caught: GPIOError?
        do {
            _ = try GPIOChip(path: "/dev/gpiochip-segmance-missing")
        } catch let thrown as GPIOError { caught = thrown }
        let error = try #require(caught)
        #expect(error.function == "gpiod_chip_open")
        #expect(error.errno == ENOENT)
        #expect(error.reason == "No such file or directory")
        #expect(error.subject.contains("/dev/gpiochip-segmance-missing"))
        #expect(error.available == .chips(GPIOInventory.chipSummaries(in: "/dev")))
        #expect(error.description.contains("gpiod_chip_open failed for chip \"/dev/gpiochip-segmance-missing\""))
        #expect(error.description.contains("No such file or directory (errno 2)"))
    }

    @Test func missingLabelListsTheChipsThatExist() throws {
        var caught: GPIOError?
        do { _ = try GPIOChip(lookup: "gpio-sim.9-node9") } catch let thrown as GPIOError { caught = thrown }
        let error = try #require(caught)
        #expect(error.function == "label lookup")
        #expect(error.subject.contains("gpio-sim.9-node9"))
        #expect(error.errno == ENOENT)
        #expect(error.reason == "No such file or directory")
        let present = GPIOInventory.chipSummaries(in: "/dev")
        #expect(error.available == .chips(present))
        if present.isEmpty {
            #expect(error.description.hasSuffix("chips present: none"))
        }
    }

    @Test func chipsInAConfiguredDirectoryAreListedInNumberOrder() throws {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        for name in ["gpiochip10", "gpiochip2", "i2c-1", "gpiochip0"] { dir.touch(name) }

        #expect(GPIOInventory.chipPaths(in: dir.path)
            == ["gpiochip0", "gpiochip2", "gpiochip10"].map { dir.path + "/" + $0 })

        // Regular files are not GPIO character devices: each is listed with why it did not open.
        var caught: GPIOError?
        do {
            _ = try GPIOChip(path: dir.path + "/missing", devDirectory: dir.path)
        } catch let thrown as GPIOError { caught = thrown }
        let error = try #require(caught)
        guard case .chips(let listed) = error.available else {
            Issue.record("no chip list in \(error)")
            return
        }
        #expect(listed.count == 3)
        #expect(listed.first?.hasPrefix(dir.path + "/gpiochip0 (cannot open: ") == true)
        #expect(error.description.contains("gpiochip10 (cannot open: "))

        let scan = GPIOInventory.scan(in: dir.path)
        #expect(scan.chips.isEmpty)
        #expect(scan.failures.map(\.function) == Array(repeating: "gpiod_chip_open", count: 3))
        #expect(scan.failures.allSatisfy { $0.errno != 0 })
    }

    @Test func anEmptyDirectoryHasNoChips() {
        let dir = TemporaryDirectory()
        defer { dir.remove() }
        #expect(GPIOInventory.chips(in: dir.path).isEmpty)
        #expect(GPIOInventory.chipPaths(in: dir.path + "/absent").isEmpty)
    }
}

@Suite("GPIOError messages", .tags(.integration))
struct GPIOErrorTests {
    @Test(arguments: [
        (GPIOError.Available.nothing, "gpiod_x failed for line 4 on gpiochip0: Device or resource busy (errno 16)"),
        (.chips([]), "gpiod_x failed for line 4 on gpiochip0: Device or resource busy (errno 16); chips present: none"),
        (.chips(["gpiochip0 [pinctrl-bcm2711] 58 lines", "gpiochip1 [raspberrypi-exp-gpio] 8 lines"]),
         "gpiod_x failed for line 4 on gpiochip0: Device or resource busy (errno 16); chips present: "
            + "gpiochip0 [pinctrl-bcm2711] 58 lines, gpiochip1 [raspberrypi-exp-gpio] 8 lines"),
        (.namedLines(["17 PLAY", "27 NEXT"]),
         "gpiod_x failed for line 4 on gpiochip0: Device or resource busy (errno 16); named lines: 17 PLAY, 27 NEXT"),
    ])
    func description(available: GPIOError.Available, expected: String) {
        let error = GPIOError(function: "gpiod_x", subject: "line 4 on gpiochip0", errno: EBUSY, available: available)
        #expect(error.description == expected)
    }
}

@Suite("Line selectors from configuration", .tags(.integration))
struct GPIOLineSelectorTests {
    @Test(arguments: [
        ("17", GPIOLineSelector.offset(17)),
        ("0", .offset(0)),
        ("PLAY", .name("PLAY")),
        ("GPIO17", .name("GPIO17")),
        ("-1", .name("-1")),
        ("", .name("")),
    ])
    func parsing(text: String, expected: GPIOLineSelector) {
        #expect(GPIOLineSelector(parsing: text) == expected)
    }
}
