/// Debounces one line without adding latency.
///
/// The first change is accepted at once, at its own timestamp. For `interval` after an
/// accepted change the line's level is only recorded, not accepted. When that interval
/// ends (seen in `advance(to:)` or at the next edge) the latest recorded level is accepted
/// if it differs — stamped with the end of the interval — so a glitch can never leave the
/// line stuck.
public struct Debouncer: Equatable, Sendable {
    /// An accepted change of the line.
    public struct Change: Equatable, Sendable {
        public var level: Bool
        public var timestamp: Int64
        /// True when accepted at the end of an ignore interval rather than at an edge:
        /// the line changed again while its previous change was still being ignored.
        public var settled: Bool

        public init(level: Bool, timestamp: Int64, settled: Bool) {
            self.level = level
            self.timestamp = timestamp
            self.settled = settled
        }
    }

    /// The ignore interval after an accepted change, in nanoseconds.
    public let interval: Int64
    /// The accepted (debounced) level.
    public private(set) var level: Bool
    /// The latest level seen on the line.
    public private(set) var raw: Bool
    /// End of the current ignore interval, if one is running.
    private var lockedUntil: Int64?

    public init(interval: Int64, level: Bool = false) {
        self.interval = max(0, interval)
        self.level = level
        self.raw = level
    }

    /// When `advance(to:)` will accept a change, or nil when nothing is pending.
    public var deadline: Int64? {
        guard let lockedUntil, raw != level else { return nil }
        return lockedUntil
    }

    /// Records an edge; returns the changes it causes, in time order (at most two: a
    /// settled change that was due before `timestamp`, then the edge's own).
    public mutating func edge(_ active: Bool, at timestamp: Int64) -> [Change] {
        var changes: [Change] = []
        if let due = advance(to: timestamp) { changes.append(due) }
        raw = active
        if lockedUntil == nil, raw != level {
            changes.append(accept(at: timestamp, settled: false))
        }
        return changes
    }

    /// Ends every ignore interval that is over by `now`; returns the settled change, if any.
    public mutating func advance(to now: Int64) -> Change? {
        var change: Change?
        while let until = lockedUntil, until <= now {
            if raw != level {
                change = accept(at: until, settled: true)
            } else {
                lockedUntil = nil
            }
        }
        return change
    }

    private mutating func accept(at timestamp: Int64, settled: Bool) -> Change {
        level = raw
        lockedUntil = timestamp + interval
        return Change(level: level, timestamp: timestamp, settled: settled)
    }
}
