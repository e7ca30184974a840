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
/// The harness reads the pointers on both sides of the edge (`Edges.renderedThroughAfter`):
/// where the render thread had rendered through when the edge was made lies between the
/// two reads, and the position the daemon saw is held to the nearer end of that bracket (a
/// period the render thread wrote while the sysfs write was under way is not the daemon's).
///
/// A control that acts where the music was heard (LOOP, a plain detent) is held to its
/// heard edge as well (LOOP going down, the detent's last step): the part position sounding
/// at the kernel's timestamp of that edge (`Placement.edgePositions`: the capture pointer
/// read just before the harness made it, moved on to the timestamp, through the offset)
/// against the position the control acted at — as the capture played it where `heard`
/// gives it (`HeardMeasurement`; the daemon's logged frame must then be that one), else the
/// daemon's logged frame — within `heardTolerance` (the capture pointer moves in steps and
/// is read over a while; the daemon looks the timestamp up on its device's clock).
public struct EdgeAgreement: Sendable {
    public struct Entry: Equatable, Sendable {
        /// "press loop", "turn +1", …
        public var action: String
        /// Where the twin recognised the control (the position the daemon saw); for a
        /// heard edge (`heard`), where the twin sounds the frame the daemon heard.
        public var placed: Int64
        /// True for the entry of a heard edge (`placed` and `edge` are part positions then).
        public var heard = false
        /// Where the edge says the render thread was, in twin frames: of the bracket read
        /// around the edge, the frame nearest `placed`.
        public var edge: Int64
        /// How many frames the render thread rendered between the reads around the edge.
        public var bracket: Int64 = 0
        /// placed − edge.
        public var difference: Int64 { placed - edge }
    }

    public var entries: [Entry] = []
    public var failures: [String] = []

    /// Checks each control that acted on moving music (transport "playing"): the position
    /// the daemon saw within `tolerance` of its edge's bracket, the frame it heard (`heard`,
    /// measured from the capture, where given) within `heardTolerance` (`tolerance` when
    /// nil) of what sounded at its heard edge.
    public init(records: [ControlRecord], placement: TwinScenario.Placement, edges: TwinScenario.Edges,
                comparison: AudioComparison.Result, tolerance: Int64, heardTolerance: Int64? = nil,
                heard measured: [Int64?] = []) {
        let heardTolerance = heardTolerance ?? tolerance
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
            let before = through - Int64(offset)
            let after = max(before, (i < edges.renderedThroughAfter.count ? edges.renderedThroughAfter[i] : nil)
                .map { $0 - Int64(offset) } ?? before)
            let entry = Entry(action: record.action, placed: placed, edge: min(max(placed, before), after),
                              bracket: after - before)
            entries.append(entry)
            if abs(entry.difference) > tolerance {
                let edge = before == after ? "twin frame \(before)" : "twin frames \(before)–\(after)"
                failures.append("\(record.action): the daemon saw part \(record.part) frame \(record.seen) (twin frame \(placed)), "
                    + "\(entry.difference) frames from where its edge was (\(edge)); at most \(tolerance) allowed")
            }
            guard record.actsWhereHeard else { continue }
            guard i < placement.edgePositions.count, let edge = placement.edgePositions[i] else {
                failures.append("\(record.action) at twin frame \(placed): no heard edge")
                continue
            }
            let truth = i < measured.count ? measured[i] : nil
            if let truth, truth != record.frame {
                failures.append("\(record.action): the daemon logged that it heard part \(record.part) frame \(record.frame); "
                    + "the capture played it as frame \(truth)")
            }
            let heard = Entry(action: record.action, placed: truth ?? record.frame, heard: true, edge: edge)
            entries.append(heard)
            if abs(heard.difference) > heardTolerance {
                let what = truth == nil ? "the daemon heard" : "the capture played what the daemon heard as"
                failures.append("\(record.action): \(what) part \(record.part) frame \(heard.placed), "
                    + "\(heard.difference) frames from what sounded at its edge (frame \(edge)); at most \(heardTolerance) allowed")
            }
        }
    }

    /// "press loop -128 (heard +40), press loop +0 [512 rendered during the edge] (heard -12), …"
    public var summary: String {
        var parts: [String] = []
        for entry in entries {
            let text = "\(entry.difference >= 0 ? "+" : "")\(entry.difference)"
                + (entry.bracket > 0 ? " [\(entry.bracket) rendered during the edge]" : "")
            if entry.heard, let last = parts.popLast() { parts.append(last + " (heard \(text))") }
            else { parts.append("\(entry.action) \(text)") }
        }
        return parts.joined(separator: ", ")
    }
}
