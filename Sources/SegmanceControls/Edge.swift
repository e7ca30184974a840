/// A change of one input line, as reported by the GPIO driver.
public struct Edge: Equatable, Sendable {
    /// The line (GPIO offset) that changed.
    public var line: Int
    /// The logical level after the change: true = button pressed / encoder contact closed.
    /// Active-low wiring is already applied by the driver.
    public var active: Bool
    /// When it happened, in nanoseconds of the monotonic clock (the kernel's event timestamp).
    public var timestamp: Int64

    public init(line: Int, active: Bool, timestamp: Int64) {
        self.line = line
        self.active = active
        self.timestamp = timestamp
    }
}
