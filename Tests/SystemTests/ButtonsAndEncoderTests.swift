import GPIOD
import SegmanceControls
import SegmanceCore
import SegmanceInput
import Testing

extension SystemTests {
    /// libgpiod on gpio-sim, edges with kernel timestamps, through SegmanceInput and
    /// SegmanceControls: the real input path of board/sim-vm.toml, contact bounce included.
    @Suite struct ButtonsAndEncoder {
        /// Plays the stimulus, feeds its edges to the controls, lets pending gestures resolve
        /// after them, and checks the events. A failure lists the edges: line, level, µs.
        func expect(_ steps: [GPIOBench.Step], on bench: GPIOBench, _ expected: [Event],
                    sourceLocation: SourceLocation = #_sourceLocation) throws -> [GPIOLineEvent<Int>] {
            let run = try bench.play(steps)
            var inputs = try bench.controls()
            var events = inputs.gpio(run.edges)
            events += inputs.advance(to: (run.edges.last?.timestampNanoseconds ?? 0) + 2_000_000_000)
            #expect(events == expected, "edges: \(run.edges.map { "\($0.offset)\($0.rising ? "↑" : "↓")\(($0.timestampNanoseconds - run.start) / 1000)" })",
                    sourceLocation: sourceLocation)
            return run.edges
        }

        @Test func aBouncyTapOnPlayIsOnePress() throws {
            let bench = try GPIOBench()
            let edges = try expect(try bench.bouncyTap("play"), on: bench, [.buttonPressed(.play)])
            // Chatter faster than gpiolib's interrupt thread is merged into fewer edges.
            #expect(edges.count >= 2, "\(edges.count) edges")
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
            _ = try expect(steps, on: bench, [.buttonPressed(.loop), .buttonPressed(.loop)])
        }

        @Test func nextHeldIsALongPress() throws {
            let bench = try GPIOBench()
            _ = try expect(try bench.bouncyTap("next", milliseconds: 900), on: bench, [.buttonLongPressed(.next)])
        }

        @Test func twoQuickPushesOfTheEncoderAreADoublePress() throws {
            let bench = try GPIOBench()
            let steps = try bench.bouncyTap("select", milliseconds: 60) + [.hold(milliseconds: 100)]
                + bench.bouncyTap("select", milliseconds: 60)
            _ = try expect(steps, on: bench, [.buttonDoublePressed(.select)])
        }

        @Test func encoderDetentsBothWaysWithChatter() throws {
            let bench = try GPIOBench(acceleration: [])
            let edges = try expect(try bench.turn(3, pause: 120) + bench.turn(-2, pause: 120), on: bench,
                                   [.encoderTurned(1), .encoderTurned(1), .encoderTurned(1),
                                    .encoderTurned(-1), .encoderTurned(-1)])
            // 4 edges a detent at least, plus chatter.
            #expect(edges.count >= 20, "\(edges.count) edges")
        }

        @Test func aFastTurnIsAccelerated() throws {
            let bench = try GPIOBench()
            let run = try bench.play(try bench.turn(6, step: 3, pause: 0))
            var inputs = try bench.controls()
            let turns = inputs.gpio(run.edges).map { event -> Int in
                guard case .encoderTurned(let steps) = event else { return 0 }
                return steps
            }
            // Six detents about 15 ms apart (by the kernel's timestamps): every one after the
            // first counts 4 times (< 30 ms) or, when the VM stalled, twice (< 60 ms).
            #expect(turns.count == 6 && turns.first == 1 && turns.dropFirst().allSatisfy { [2, 4].contains($0) },
                    "\(turns)")
        }
    }
}
