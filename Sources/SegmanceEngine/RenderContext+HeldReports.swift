import SegmanceAudio
import SegmanceCore

/// With rewinds: the reports and the position of frames that may still be rendered again
/// are held until the device has played up to the guard before them.
extension RenderContext {
    /// Moves the renderer's reports of the chunk just rendered to the held list (pushing
    /// them at once if it is full).
    mutating func hold(pushed: inout Bool) {
        let count = renderer.reportCountInPlace()
        var i = 0
        while i < count {
            let report = renderer.reportInPlace(at: i)
            if heldCount < heldCapacity {
                heldReports[heldCount] = report
                heldCount &+= 1
            } else {
                pushed = push(.report(report)) || pushed
            }
            i &+= 1
        }
        renderer.removeAllReports()
    }

    /// Pushes the held reports of frames before `settled`. True when one worth waking the
    /// control side for was pushed (`wakes`: not a position).
    mutating func release(before settled: Int64) -> Bool {
        var n = 0
        var notable = false
        while n < heldCount && heldReports[n].frame < settled {
            let report = heldReports[n]
            if push(.report(report)) && Self.wakes(report.report) { notable = true }
            n &+= 1
        }
        guard n > 0 else { return false }
        let rest = heldCount &- n
        if rest > 0 { heldReports.update(from: heldReports + n, count: rest) }
        heldCount = rest
        return notable
    }

    /// Publishes the position and epoch at the last chunk boundary before `settled`
    /// (the renderer's own when everything written is settled). True when it reached the
    /// control side's watch (`PublishedPosition.watch`).
    mutating func publishPosition(settled: Int64) -> Bool {
        let clock = renderer.clockInPlace()
        let chunk = Int64(periodFrames)
        let boundary = settled / chunk &* chunk
        if boundary < clock, clock &- boundary < Int64(snapshotCount) &* chunk {
            let snapshot = snapshots[slot(boundary)]
            if snapshot.clock == boundary {
                return publishPosition(snapshot.position, snapshot.epoch)
            }
        }
        return publishPosition(renderer.positionInPlace(), renderer.epochInPlace())
    }

    /// How long until the next moment the control side must hear of, as the device plays
    /// on, in milliseconds rounded up; -1 (no limit) when none is known. Two set a wake of
    /// their own; positions go with the next wake (for room, a few times a second however
    /// deep the buffer, or the control side's own):
    /// - the oldest held report other than a position (a tick, a start, a loop, an end);
    /// - the chunk boundary whose position first reaches the control side's watch, among
    ///   those rendered, so a watch is met when its frame is played, not at the next refill.
    func millisecondsUntilNextWake(settled: Int64, clock: Int64) -> Int {
        var due = Int64.max
        var i = 0
        while i < heldCount {
            if case .position = heldReports[i].report.kind {
                i &+= 1
                continue
            }
            due = heldReports[i].frame
            break
        }
        due = min(due, watchedBoundary(settled: settled, clock: clock, before: due))
        guard due != Int64.max else { return -1 }
        let rate = sampleRate
        let frames = max(0, due &- settled) &+ 1
        return Int(truncatingIfNeeded: (frames &* 1_000 &+ rate &- 1) / rate)
    }

    /// The first chunk boundary before `limit` whose position reaches the control side's
    /// watch, among those `publishPosition(settled:)` can publish from here on (rendered,
    /// snapshot kept); `Int64.max` for none.
    private func watchedBoundary(settled: Int64, clock: Int64, before limit: Int64) -> Int64 {
        let watched = shared.pointee.position.watch.load(ordering: .relaxed)
        guard watched != Int64.max else { return Int64.max }
        let chunk = Int64(periodFrames)
        var boundary = (settled &+ chunk &- 1) / chunk &* chunk
        let oldest = clock &- Int64(snapshotCount &- 1) &* chunk
        if boundary < oldest { boundary = (oldest &+ chunk &- 1) / chunk &* chunk }
        while boundary < clock && boundary < limit {
            // Read in place: a snapshot is a whole renderer state.
            let snapshot = snapshots + slot(boundary)
            if snapshot.pointee.clock == boundary && snapshot.pointee.position >= watched { return boundary }
            boundary &+= chunk
        }
        return Int64.max
    }
}
