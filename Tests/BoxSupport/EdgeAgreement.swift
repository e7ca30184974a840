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
///
/// A control that acts where the music was heard (LOOP, a plain detent) is held to its
/// heard edge as well (LOOP going down, the detent's last step): the capture frame sounding
/// at the kernel's timestamp of that edge (`Edges.soundingAtHeardEdge`: the capture pointer
/// read just before the harness made it, moved on to the timestamp) is, through the offset,
/// the twin frame the daemon's heard frame must sound at, within `tolerance` (the pointer
/// moves in steps; the daemon looks the timestamp up on its device's clock).
public struct EdgeAgreement: Sendable {
    public struct Entry: Equatable, Sendable {
        /// "press loop", "turn +1", …
        public var action: String
        /// Where the twin recognised the control (the position the daemon saw); for a
        /// heard edge (`heard`), where the twin sounds the frame the daemon heard.
        public var placed: Int64
        /// True for the entry of a heard edge.
        public var heard = false
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
            guard record.actsWhereHeard else { continue }
            guard i < placement.heardFrames.count, let at = placement.heardFrames[i],
                  i < edges.soundingAtHeardEdge.count, let sounding = edges.soundingAtHeardEdge[i] else {
                failures.append("\(record.action) at twin frame \(placed): no heard frame or heard edge")
                continue
            }
            let heardOffset = comparison.offset(before: Int(at)) ?? offset
            let heard = Entry(action: record.action, placed: at, heard: true, edge: sounding - Int64(heardOffset))
            entries.append(heard)
            if abs(heard.difference) > tolerance {
                failures.append("\(record.action): the daemon heard part \(record.part) frame \(record.frame) (twin frame \(at)), "
                    + "\(heard.difference) frames from what sounded at its edge (twin frame \(heard.edge)); at most \(tolerance) allowed")
            }
        }
    }

    /// "press loop -128 (heard +40), press loop +0 (heard -12), …"
    public var summary: String {
        var parts: [String] = []
        for entry in entries {
            let text = "\(entry.difference >= 0 ? "+" : "")\(entry.difference)"
            if entry.heard, let last = parts.popLast() { parts.append(last + " (heard \(text))") }
            else { parts.append("\(entry.action) \(text)") }
        }
        return parts.joined(separator: ", ")
    }
}
