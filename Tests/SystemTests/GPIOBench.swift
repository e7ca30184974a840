import Testing
import GPIOD
import SegmanceBoard
import SegmanceControls
import SegmanceCore
import SegmanceInput

/// The board profile board/sim-vm.toml on the VM's gpio-sim chip: its lines requested with
/// libgpiod as the appliance requests them (bias and active-low from the profile), and the
/// simulator's side of the same lines, driven through sysfs as fingers and an encoder's
/// contacts would. A step script plays the stimulus while the edges are read, so the
/// kernel's 16-event queue per line never overflows.
final class GPIOBench {
    /// One step of a stimulus.
    enum Step {
        /// Closes (`true`) or opens a contact: the line is pulled low or high (active low).
        case contact(BoardProfile.Line, closed: Bool)
        /// Time passes, edges are read meanwhile.
        case hold(milliseconds: Int)
    }

    let profile: BoardProfile
    let chip: ChipDescription
    let offsets: [BoardProfile.Line: Int]
    let request: GPIOLineRequest
    let edges: GPIOEdgeSource<Int>
    /// Replaces the default encoder acceleration table when set ([] counts detents 1:1).
    private let acceleration: [AccelerationStep]?

    init(acceleration: [AccelerationStep]? = nil) throws {
        let file = Box.boardDirectory + "/sim-vm.toml"
        profile = try BoardProfile(parsing: try Box.read(file), file: file)
        let chips = GPIOInventory.chips().map {
            ChipDescription(path: $0.path, name: $0.name, label: $0.label, lineNames: $0.lines.map(\.name))
        }
        (chip, offsets) = try profile.resolveGPIO(on: chips, file: file)
        let gpio = try #require(profile.gpio)
        let wanted = offsets.values.sorted().map { GPIOLineSelector.offset(UInt32($0)) }
        request = try GPIOLineRequest(chip: try GPIOChip(path: chip.path), lines: wanted,
                                      bias: GPIOBias(rawValue: gpio.bias) ?? .asIs, activeLow: gpio.activeLow,
                                      consumer: "segmance-system-test")
        edges = try GPIOEdgeSource(request: request, ids: Dictionary(uniqueKeysWithValues: request.offsets.map { ($0, Int($0)) }))
        self.acceleration = acceleration
    }

    /// The controls the profile describes, with the lines' levels read now.
    func controls() throws -> DriverInputs {
        var map = profile.controlMap(offsets: offsets)
        if let acceleration { map.acceleration = acceleration }
        let levels = try request.values()
        let start = Dictionary(uniqueKeysWithValues: zip(request.offsets.map { Int($0) }, levels.map { $0 == 1 }))
        return DriverInputs(controls: Controls(map: map, levels: start))
    }

    /// The line of a button or encoder contact, as the profile names it.
    func line(_ control: String) throws -> BoardProfile.Line {
        let gpio = try #require(profile.gpio)
        switch control {
        case "encoder_a": return try #require(gpio.encoderA)
        case "encoder_b": return try #require(gpio.encoderB)
        default:
            let button = try #require(Button(rawValue: control))
            return try #require(gpio.buttons[button])
        }
    }

    /// Plays `steps` on the simulated lines, reads every edge they cause, and returns the
    /// edges with the monotonic times before the first step and after the last edge.
    func play(_ steps: [Step]) throws -> (edges: [GPIOLineEvent<Int>], start: Int64, end: Int64) {
        var seen = try edges.readPending()
        #expect(seen.isEmpty, "edges pending before the stimulus: \(seen)")
        seen = []
        let start = Box.now()
        for step in steps {
            switch step {
            case .contact(let line, let closed):
                let offset = try #require(offsets[line])
                // Active low: a closed contact pulls the line to ground.
                try Box.write(closed ? "pull-down" : "pull-up",
                              to: "/sys/bus/gpio/devices/\(chip.name)/sim_gpio\(offset)/pull")
                seen += try edges.readPending()
            case .hold(let milliseconds):
                let until = Box.now() + Int64(milliseconds) * 1_000_000
                while case let left = until - Box.now(), left > 0 {
                    seen += try edges.wait(timeoutNanoseconds: left)
                }
            }
        }
        // The last edges are still on their way from the interrupt thread: read until the
        // lines have been quiet a while.
        while case let more = try edges.wait(timeoutNanoseconds: 300_000_000), !more.isEmpty {
            seen += more
        }
        return (seen, start, Box.now())
    }

    // MARK: Stimuli

    /// A contact closing with chatter: closed, open, closed, open, closed, fast as the
    /// simulator writes (well under the 10 ms debounce).
    func bouncyClose(_ line: BoardProfile.Line) -> [Step] {
        [true, false, true, false, true].map { .contact(line, closed: $0) }
    }

    /// A contact opening with chatter.
    func bouncyOpen(_ line: BoardProfile.Line) -> [Step] {
        [false, true, false, true, false].map { .contact(line, closed: $0) }
    }

    /// A press of `milliseconds` with bounce on both edges.
    func bouncyTap(_ control: String, milliseconds: Int = 80) throws -> [Step] {
        let line = try line(control)
        return bouncyClose(line) + [.hold(milliseconds: milliseconds)] + bouncyOpen(line)
    }

    /// Encoder detents: 4 quadrature steps each (EC11), A leading B for clockwise, `step`
    /// ms apart (4 ms: a brisk turn, 16 ms a detent). The first contact of each detent
    /// chatters. `pause` between detents.
    func turn(_ detents: Int, step: Int = 4, pause: Int) throws -> [Step] {
        let a = try line("encoder_a"), b = try line("encoder_b")
        let (first, second) = detents > 0 ? (a, b) : (b, a)
        var steps: [Step] = []
        for _ in 0..<abs(detents) {
            steps += bouncyClose(first)
            for (line, closed) in [(second, true), (first, false), (second, false)] {
                steps += [.hold(milliseconds: step), .contact(line, closed: closed)]
            }
            if pause > 0 { steps.append(.hold(milliseconds: pause)) }
        }
        return steps
    }
}
