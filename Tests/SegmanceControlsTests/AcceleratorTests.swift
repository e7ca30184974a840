import Testing
@testable import SegmanceControls

@Suite("Acceleration", .tags(.unit))
struct AcceleratorTests {
    /// Interval since the previous detent in the same direction -> multiplier (default table).
    @Test(arguments: [
        (ms(1), 4), (ms(30) - 1, 4), (ms(30), 2), (ms(59), 2), (ms(60), 1), (ms(1000), 1),
    ])
    func defaultTable(interval: Int64, multiplier: Int) {
        var accelerator = Accelerator(table: AccelerationStep.defaultTable)
        #expect(accelerator.turn(1, at: ms(1000)) == 1)
        #expect(accelerator.turn(1, at: ms(1000) + interval) == multiplier)
        #expect(accelerator.turn(-1, at: ms(1000) + interval + 1) == -1)
    }

    @Test func tableIsDataAndOrderDoesNotMatter() {
        let table = [AccelerationStep(below: ms(100), multiplier: 3),
                     AccelerationStep(below: ms(20), multiplier: 10)]
        var accelerator = Accelerator(table: table)
        #expect(accelerator.multiplier(after: ms(10)) == 10)
        #expect(accelerator.multiplier(after: ms(50)) == 3)
        #expect(accelerator.multiplier(after: ms(100)) == 1)
        #expect(accelerator.turn(-2, at: 0) == -2)
        #expect(accelerator.turn(-2, at: ms(10)) == -20)
    }

    @Test func directionChangeResets() {
        var accelerator = Accelerator(table: AccelerationStep.defaultTable)
        let turns = [(1, ms(0)), (1, ms(10)), (-1, ms(20)), (-1, ms(30)), (1, ms(40))]
        #expect(turns.map { accelerator.turn($0.0, at: $0.1) } == [1, 4, -1, -4, 1])
    }

    @Test func noTableMeansNoAcceleration() {
        var accelerator = Accelerator(table: [])
        #expect((0..<5).map { accelerator.turn(1, at: Int64($0)) } == [1, 1, 1, 1, 1])
        #expect(accelerator.turn(0, at: 10) == 0)
    }
}
