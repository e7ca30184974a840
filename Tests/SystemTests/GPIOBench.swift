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
///
/// The VM is slow and stalls now and then (TCG, a shared host): gpiolib's interrupt thread
/// can run milliseconds after an edge, and a burst of chatter can be stretched past the
/// debounce interval. So each change waits until the kernel has reported it (as a hand
/// slower than the kernel), and a run measures what the stimulus really was — the longest
/// burst of chatter, the times of the encoder's detents — for a test to retry one the VM
/// did not play as written.
final class GPIOBench {
    /// One step of a stimulus.
    enum Step {
        /// Closes (`true`) or opens a contact: the line is pulled low or high (active low).
        case contact(BoardProfile.Line, closed: Bool)
        /// A contact closing or opening with chatter: three changes back to back (each sysfs
        /// write takes ~1 ms in the VM), ending closed or open.
        case chatter(BoardProfile.Line, closed: Bool)
        /// A detent of the encoder is complete (marks the time for `Run.detents`).
        case detent
        /// Time passes, edges are read meanwhile.
        case hold(milliseconds: Int)
    }

    /// What a stimulus caused, and what it was.
    struct Run {
        var edges: [GPIOLineEvent<Int>] = []
        /// Monotonic times before the first step and after the last edge.
        var start: Int64 = 0
        var end: Int64 = 0
        /// The longest burst of chatter, from its first write to its last.
        var longestChatter: Int64 = 0
        /// When each `.detent` was reached.
        var detents: [Int64] = []

        /// The edges as "line, level, µs since the start", for failure messages.
        var summary: String {
            "\(edges.map { "\($0.offset)\($0.rising ? "↑" : "↓")\(($0.timestampNanoseconds - start) / 1000)" })"
        }
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

    /// Plays `steps` on the simulated lines and reads every edge they cause.
    func play(_ steps: [Step]) throws -> Run {
        let stale = try edges.readPending()
        #expect(stale.isEmpty, "edges pending before the stimulus: \(stale)")
        var run = Run(start: Box.now())
        for step in steps {
            switch step {
            case .contact(let line, let closed):
                try set(line, closed: closed)
                try settle(line, closed: closed, into: &run)
            case .chatter(let line, let closed):
                let started = Box.now()
                for level in [closed, !closed, closed] { try set(line, closed: level) }
                run.longestChatter = max(run.longestChatter, Box.now() - started)
                try settle(line, closed: closed, into: &run)
            case .detent:
                run.detents.append(Box.now())
            case .hold(let milliseconds):
                let until = Box.now() + Int64(milliseconds) * 1_000_000
                while case let left = until - Box.now(), left > 0 {
                    run.edges += try edges.wait(timeoutNanoseconds: left)
                }
            }
        }
        // Edges of a burst may still be on their way: read until the lines are quiet a while.
        while case let more = try edges.wait(timeoutNanoseconds: 300_000_000), !more.isEmpty {
            run.edges += more
        }
        run.end = Box.now()
        return run
    }

    /// Active low: a closed contact pulls the line to ground.
    private func set(_ line: BoardProfile.Line, closed: Bool) throws {
        let offset = try #require(offsets[line])
        try Box.write(closed ? "pull-down" : "pull-up", to: "/sys/bus/gpio/devices/\(chip.name)/sim_gpio\(offset)/pull")
    }

    /// Reads edges until one on `line` reports its new level: the kernel's interrupt thread
    /// has seen the change.
    private func settle(_ line: BoardProfile.Line, closed: Bool, into run: inout Run) throws {
        let offset = try #require(offsets[line])
        let deadline = Box.now() + 2_000_000_000
        while true {
            let new = try edges.wait(timeoutNanoseconds: max(0, deadline - Box.now()))
            run.edges += new
            if new.contains(where: { $0.offset == offset && $0.rising == closed }) { return }
            guard Box.now() < deadline else {
                throw BoxError("line \(offset) never reported level \(closed ? 1 : 0) after the change (edges: \(run.summary))")
            }
        }
    }

    // MARK: Stimuli

    /// A press of `milliseconds` with chatter on both edges.
    func bouncyTap(_ control: String, milliseconds: Int = 80) throws -> [Step] {
        let line = try line(control)
        return [.chatter(line, closed: true), .hold(milliseconds: milliseconds), .chatter(line, closed: false)]
    }

    /// Encoder detents: 4 quadrature steps each (EC11), A leading B for clockwise, about
    /// `step` ms apart; the first contact of each detent chatters. `pause` between detents.
    func turn(_ detents: Int, step: Int = 4, pause: Int) throws -> [Step] {
        let a = try line("encoder_a"), b = try line("encoder_b")
        let (first, second) = detents > 0 ? (a, b) : (b, a)
        var steps: [Step] = []
        for _ in 0..<abs(detents) {
            steps.append(.chatter(first, closed: true))
            for (line, closed) in [(second, true), (first, false), (second, false)] {
                steps += [.hold(milliseconds: step), .contact(line, closed: closed)]
            }
            steps.append(.detent)
            if pause > 0 { steps.append(.hold(milliseconds: pause)) }
        }
        return steps
    }
}
