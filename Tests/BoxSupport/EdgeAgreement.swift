/// Whether the position the daemon logged for each control is where the edge that made it
/// says the render thread was.
///
/// At each deciding edge (a button coming up, an encoder's last step) the harness reads the
/// loopback card's pointers from the kernel: the capture frame sounding then, and how far
/// the daemon's render thread had written ahead of it (`Edges.renderedThrough`). Through
/// the offset the audio comparison found there (capture = twin + offset), that is a twin
/// frame; the control, recognised in the twin where its music was at the position the
/// daemon saw (`ControlRecord.seen`: for LOOP and a detent too, which act where they were
/// heard but arrive where the render thread was), must lie within `tolerance` of it: the
/// daemon reads its render thread's position after the edge, and the thread may have
/// rendered a period in between.
public struct EdgeAgreement: Sendable {
    public struct Entry: Equatable, Sendable {
        /// "press loop", "turn +1", …
        public var action: String
        /// Where the twin recognised the control (the position the daemon saw).
        public var placed: Int64
        /// Where the edge says the render thread was, in twin frames.
        public var edge: Int64
        /// placed − edge.
        public var difference: Int64 { placed - edge }
    }

    public var entries: [Entry] = []
    public var failures: [String] = []

    /// Checks each control that acted on moving music (transport "playing").
    public init(records: [ControlRecord], placement: TwinScenario.Placement, edges: TwinScenario.Edges,
                comparison: AudioComparison.Result, tolerance: Int64) {
        for (i, record) in records.enumerated() where record.transport == "playing" {
            guard i < placement.controlFrames.count, i < edges.renderedThrough.count else {
                failures.append("\(record.action): no placement or edge for control \(i + 1)")
                continue
            }
            let placed = placement.controlFrames[i]
            guard let through = edges.renderedThrough[i] else {
                failures.append("\(record.action) at twin frame \(placed): the edge's position was not read")
                continue
            }
            guard let offset = comparison.offset(before: Int(placed)) else {
                failures.append("\(record.action) at twin frame \(placed): the audio comparison found no offset there")
                continue
            }
            let entry = Entry(action: record.action, placed: placed, edge: through - Int64(offset))
            entries.append(entry)
            if abs(entry.difference) > tolerance {
                failures.append("\(record.action): the daemon saw part \(record.part) frame \(record.seen) (twin frame \(placed)), "
                    + "\(entry.difference) frames from where its edge was (twin frame \(entry.edge)); at most \(tolerance) allowed")
            }
        }
    }

    /// "press loop -128, press loop +0, …"
    public var summary: String {
        entries.map { "\($0.action) \($0.difference >= 0 ? "+" : "")\($0.difference)" }.joined(separator: ", ")
    }
}
