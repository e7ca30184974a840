/// Encoder acceleration: detents that follow each other quickly in the same direction
/// count several times, by a table keyed on the time since the previous detent.
public struct Accelerator: Equatable, Sendable {
    /// Rows sorted by `below`, shortest first.
    public let table: [AccelerationStep]
    private var lastDirection = 0
    private var lastTime: Int64 = 0

    public init(table: [AccelerationStep]) {
        self.table = table.sorted { $0.below < $1.below }
    }

    /// The multiplier for a detent `interval` ns after the previous one in the same direction.
    public func multiplier(after interval: Int64) -> Int {
        table.first { interval < $0.below }.map { max(1, $0.multiplier) } ?? 1
    }

    /// `detents` (signed) at `timestamp`, accelerated. The first detent, and the first
    /// after a change of direction, count once.
    public mutating func turn(_ detents: Int, at timestamp: Int64) -> Int {
        guard detents != 0 else { return 0 }
        let direction = detents.signum()
        let factor = direction == lastDirection ? multiplier(after: timestamp - lastTime) : 1
        lastDirection = direction
        lastTime = timestamp
        return detents * factor
    }
}
