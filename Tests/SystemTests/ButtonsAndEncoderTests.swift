import Glibc
import GPIOD
import SegmanceControls
import SegmanceCore
import SegmanceInput
import Testing

extension SystemTests {
    /// libgpiod on gpio-sim, edges with kernel timestamps, through SegmanceInput and
    /// SegmanceControls: the real input path of board/sim-vm.toml, contact bounce included.
    @Suite(.tags(.system)) struct ButtonsAndEncoder {
        /// Plays the stimulus until the VM plays it as written — every burst of chatter
        /// shorter than the debounce interval, and `valid` — at most four times; then feeds
        /// its edges to the controls, lets pending gestures resolve and checks the events.
        @discardableResult
        func expect(_ steps: [GPIOBench.Step], on bench: GPIOBench, _ expected: [Event],
                    valid: (GPIOBench.Run) -> Bool = { _ in true },
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> GPIOBench.Run {
            let debounce = bench.profile.timing.debounce
            func played(_ run: GPIOBench.Run) -> Bool { run.longestChatter < debounce - 2_000_000 && valid(run) }
            var run = try bench.play(steps)
            var attempts = 1
            while !played(run) && attempts < 4 {
                print("the VM stalled (longest chatter \(run.longestChatter / 1000) µs, detents at \(run.detents.map { ($0 - run.start) / 1000 }) µs): again")
                run = try bench.play(steps)
                attempts += 1
            }
            #expect(played(run), "the VM did not play the stimulus as written in \(attempts) attempts: longest chatter \(run.longestChatter / 1000) µs",
                    sourceLocation: sourceLocation)
            var inputs = try bench.controls()
            var events = inputs.gpio(run.edges)
            events += inputs.advance(to: (run.edges.last?.timestampNanoseconds ?? 0) + 2_000_000_000)
            #expect(events.map(\.event) == expected, "edges (line, level, µs): \(run.summary)",
                    sourceLocation: sourceLocation)
            return run
        }

        /// The box runs these tests once per libgpiod API (Tests/System/run.sh, and with
        /// SEGMANCE_BOX_GPIOD_API=2 a build against trixie's libgpiod 2): each run says which.
        @Test func theBuildUsesTheLibgpiodAPITheBoxAskedFor() throws {
            print("libgpiod API \(GPIOChip.libgpiodAPI)")
            let asked = getenv("SEGMANCE_BOX_GPIOD_API").flatMap { Int(String(cString: $0)) } ?? 1
            #expect(GPIOChip.libgpiodAPI == asked)
        }

        @Test func aBouncyTapOnPlayIsOnePress() throws {
            let bench = try GPIOBench()
            let run = try expect(try bench.bouncyTap("play"), on: bench, [.buttonPressed(.play)])
            // Chatter faster than gpiolib's interrupt thread is merged into fewer edges.
            #expect(run.edges.count >= 2, "\(run.edges.count) edges")
        }

        @Test func edgesCarryMonotonicKernelTimestampsInOrder() throws {
            let bench = try GPIOBench()
            let run = try bench.play(try bench.bouncyTap("prev", milliseconds: 200))
            let times = run.edges.map(\.timestampNanoseconds)
            #expect(times == times.sorted())
            #expect(times.allSatisfy { (run.start...run.end).contains($0) },
                    "timestamps \(times) outside [\(run.start), \(run.end)]: not CLOCK_MONOTONIC")
            // Active low: closing the contact reads as a rising logical edge. The v1 uAPI labels
            // an edge with the level its interrupt thread reads, so within a burst of chatter
            // a label can lag; the last label of a burst is the settled level.
            #expect(run.edges.contains { $0.rising })
            #expect(run.edges.last?.rising == false)
            // The kernel's timestamps show the hold: from the first close to the last open.
            let held = (times.last ?? 0) - (times.first ?? 0)
            #expect(held >= 200_000_000, "held \(held) ns")
        }

        @Test func loopTwiceMarksAThenB() throws {
            let bench = try GPIOBench()
            let steps = try bench.bouncyTap("loop") + [.hold(milliseconds: 400)] + bench.bouncyTap("loop")
            try expect(steps, on: bench, [.buttonPressed(.loop), .buttonPressed(.loop)])
        }

        @Test func nextHeldIsALongPress() throws {
            let bench = try GPIOBench()
            try expect(try bench.bouncyTap("next", milliseconds: 900), on: bench, [.buttonLongPressed(.next)])
        }

        @Test func twoQuickPushesOfTheEncoderAreADoublePress() throws {
            let bench = try GPIOBench()
            let steps = try bench.bouncyTap("select", milliseconds: 60) + [.hold(milliseconds: 100)]
                + bench.bouncyTap("select", milliseconds: 60)
            try expect(steps, on: bench, [.buttonDoublePressed(.select)])
        }

        @Test func encoderDetentsBothWaysWithChatter() throws {
            let bench = try GPIOBench(acceleration: [])
            let run = try expect(try bench.turn(3, pause: 120) + bench.turn(-2, pause: 120), on: bench,
                                 [.encoderTurned(1), .encoderTurned(1), .encoderTurned(1),
                                  .encoderTurned(-1), .encoderTurned(-1)])
            // 4 edges a detent at least, plus chatter.
            #expect(run.edges.count >= 20, "\(run.edges.count) edges")
        }

        @Test func aFastTurnIsAccelerated() throws {
            // Six detents in quick succession. The acceleration comes from the kernel's edge
            // timestamps; its table is scaled to what the VM can play reliably (a detent
            // within 80 ms of the previous one counts four times), the default table's
            // thresholds are the unit tests' business. A run whose detents the VM spread
            // over more than 60 ms is played again.
            let bench = try GPIOBench(acceleration: [AccelerationStep(below: 80_000_000, multiplier: 4),
                                                     AccelerationStep(below: 160_000_000, multiplier: 2)])
            try expect(try bench.turn(6, step: 1, pause: 0), on: bench,
                       [.encoderTurned(1)] + Array(repeating: .encoderTurned(4), count: 5),
                       valid: { run in zip(run.detents, run.detents.dropFirst()).allSatisfy { $1 - $0 < 60_000_000 } })
        }
    }
}
