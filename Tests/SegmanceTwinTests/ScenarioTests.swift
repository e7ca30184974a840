import Testing
import SegmanceCore
@testable import SegmanceTwin

@Suite(.tags(.unit)) struct ScenarioTests {
    @Test func parsesTheDesignExample() throws {
        let text = """
        0.0   tap play          # press, release 60 ms later
        4.0   turn +3           # encoder, 3 detents clockwise
        6.0   tap loop          # mark A
        9.5   tap loop          # mark B: the loop is on
        20.0  hold prev 0.8     # long press
        21.0  bounce next       # a press with contact bounce

        25.0  stick fixtures/stick-1   # a USB stick with this folder's content is mounted
        31.0  unstick           # yanked
        32.0  turn -2 fast
        33    double select
        40.0  end
        """
        let scenario = try Scenario(parsing: text)
        #expect(scenario.steps.map(\.action) == [
            .tap(.play), .turn(3, fast: false), .tap(.loop), .tap(.loop), .hold(.prev, seconds: 800_000_000),
            .bounce(.next), .stick("fixtures/stick-1"), .unstick, .turn(-2, fast: true), .double(.select), .end,
        ])
        #expect(scenario.steps.map(\.time) == [0, 4, 6, 9.5, 20, 21, 25, 31, 32, 33, 40].map { Int64($0 * 1e9) })
        #expect(scenario.steps.map(\.line) == [1, 2, 3, 4, 5, 6, 8, 9, 10, 11, 12])
        #expect(scenario.duration == 40_000_000_000)
    }

    @Test func parsesAStickWithItsLabel() throws {
        let scenario = try Scenario(parsing: "1 stick media/sda1 label Salsa class\n2 stick my songs\n")
        #expect(scenario.steps.map(\.action) == [.stick("media/sda1", label: "Salsa class"), .stick("my songs")])
        #expect(throws: ScenarioError.self) { try Scenario(parsing: "1 stick media/sda1 label\n") }
    }

    @Test func parsesTheMakingActions() throws {
        let scenario = try Scenario(parsing: """
            1 split
            2 merge
            3 rename Eight 3
            4 delete part
            5 part 2
            6 loop add A
            7 loop next
            8 move add Spin
            9 move delete
            10 new routine
            """)
        #expect(scenario.steps.map(\.action) == [
            .edit(.split), .edit(.join), .edit(.rename("Eight 3")), .edit(.deletePart), .edit(.goToPart(1)),
            .edit(.nameLoop("A")), .edit(.nextLoop), .edit(.addMove("Spin", at: nil)), .edit(.deleteMove),
            .edit(.newRoutine),
        ])
    }

    @Test func parsesALatency() throws {
        let scenario = try Scenario(parsing: "1.5 latency 2048\n2.0 latency 0\n")
        #expect(scenario.steps.map(\.action) == [.latency(2048), .latency(0)])
    }

    @Test(arguments: [
        ("1.0 tap", "s.txt:1: 'tap' needs a button (play, prev, next, loop, select)"),
        ("1.0 tap stop", "s.txt:1: 'stop' is not a button (play, prev, next, loop, select)"),
        ("x tap play", "s.txt:1: 'x' is not a time in seconds"),
        ("1.0 jump", "s.txt:1: unknown action 'jump' (tap, hold, bounce, double, press, release, turn, chord, speed, "
            + "latency, stick, unstick, export, split, merge, rename, delete part, part, loop add, loop next, move add, "
            + "move delete, new routine, end)"),
        ("1.0 rename Verse 9", "s.txt:1: 'Verse 9' is not a name the box offers (" + Names.parts.joined(separator: ", ") + ")"),
        ("1.0 move add Cartwheel", "s.txt:1: 'Cartwheel' is not a move type the box offers ("
            + Names.moveTypes.joined(separator: ", ") + ")"),
        ("1.0 part 0", "s.txt:1: part needs a part number from 1, e.g. 'part 2'"),
        ("1.0 delete", "s.txt:1: 'delete' is not a making action (split, merge, rename NAME, delete part, part N, "
            + "loop add NAME, loop next, move add TYPE, move delete, new routine)"),
        ("1.0 turn 0", "s.txt:1: turn needs a non-zero number of detents, e.g. 'turn +3' or 'turn -2'"),
        ("1.0 hold prev", "s.txt:1: hold needs a button and a duration in seconds, e.g. 'hold prev 0.8'"),
        ("1.0 latency -5", "s.txt:1: latency needs a number of frames from 0 on, e.g. 'latency 2048'"),
        ("2.0 tap play\n1.0 tap play", "s.txt:2: time 1.0 is before the previous line's"),
        ("1.0", "s.txt:1: an action is missing after the time"),
    ] as [(String, String)])
    func errorsNameTheFileAndLine(text: String, message: String) {
        #expect(throws: ScenarioError.self) { try Scenario(parsing: text, file: "s.txt") }
        do {
            _ = try Scenario(parsing: text, file: "s.txt")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test(arguments: [("0", 0), ("12", 12_000_000_000), ("0.06", 60_000_000), ("1.000000001", 1_000_000_001)] as [(String, Int64)])
    func timesAreExactNanoseconds(text: String, nanoseconds: Int64) {
        #expect(Scenario.nanoseconds(text) == nanoseconds)
    }

    @Test func withoutEndTheRunLastsTwoSecondsPastTheLastAction() throws {
        #expect(try Scenario(parsing: "3.5 tap play").duration == 5_500_000_000)
    }
}
