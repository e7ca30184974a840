/// Keeps resident exactly the media the render side is about to read, and nothing else:
/// a window around the play head, the loop region (or its start when it is long), and the
/// beginning of the part queued to follow. Driven by the control side: when a part is
/// loaded, a loop set, a seek sent, and as position reports arrive. The resident set then
/// stays a few MB however long the parts are (a 3-minute part is 34 MB of PCM).
public final class PlaybackResidency {
    /// How much to keep, in frames.
    public struct Window: Sendable, Equatable {
        /// Behind the play head (crossfades and report lag).
        public var behind: Int64
        /// Ahead of the play head.
        public var ahead: Int64
        /// A loop region up to this long is kept whole; a longer one, its first `ahead` frames.
        public var wholeLoop: Int64
        /// Of the part queued to follow, this much from its start.
        public var nextStart: Int64
        /// The window moves in steps of this many frames (madvise calls once a step, not per period).
        public var step: Int64

        public init(sampleRate: Int) {
            let s = Int64(sampleRate)
            behind = 1 * s
            ahead = 8 * s
            wholeLoop = 16 * s
            nextStart = 4 * s
            step = 1 * s
        }
    }

    /// A part of a media file: the frames `start ..< start + length` of `media`.
    public struct Segment {
        public var media: MappedPCM
        public var start: Int64
        public var length: Int64
        public init(media: MappedPCM, start: Int64, length: Int64) {
            self.media = media
            self.start = start
            self.length = length
        }
    }

    public let window: Window
    private var current: Segment?
    private var next: Segment?
    /// Part-relative loop region of the current part.
    private var loop: Range<Int64>?
    private var position: Int64 = 0
    private var lastStep: Int64?
    /// Per mapping, the ranges kept and locked by the last `apply`: they stay resident
    /// until released, so a step only locks what enters the window (an `mlock` of a range
    /// already locked walks every page of it again, under the address space's write lock).
    private var locked: [ObjectIdentifier: [Range<Int64>]] = [:]
    /// Per mapping, the ranges the last `apply` kept (locked or only touched): what a step
    /// of the window may have to give back.
    private var kept: [ObjectIdentifier: [Range<Int64>]] = [:]

    public init(window: Window) {
        self.window = window
    }

    /// A new part sounds from `position` (part-relative).
    public func load(_ segment: Segment, at position: Int64) {
        let previous = [current, next].compactMap { $0?.media }
        current = segment
        loop = nil
        self.position = position
        apply()
        // Media no longer in play is let go of entirely.
        for media in previous where media !== segment.media && media !== next?.media {
            releaseAll(media)
        }
    }

    /// The loop region of the current part changed (nil: no loop).
    public func setLoop(_ region: Range<Int64>?) {
        guard region != loop else { return }
        loop = region
        apply()
    }

    /// The part that follows the current one changed.
    public func setNext(_ segment: Segment?) {
        let old = next?.media
        next = segment
        apply()
        if let old, old !== current?.media, old !== segment?.media { releaseAll(old) }
    }

    /// The queued part took over seamlessly: it is the current one now, from its start.
    public func nextTookOver() {
        guard let next else { return }
        let previous = current?.media
        current = next
        self.next = nil
        loop = nil
        position = 0
        apply()
        if let previous, previous !== next.media { releaseAll(previous) }
    }

    /// Playback jumps (a seek, play from a position): the target is made resident now.
    public func jump(to position: Int64) {
        self.position = position
        apply()
    }

    /// A position report: the window follows the play head, a step at a time.
    public func advance(to position: Int64) {
        self.position = position
        guard position / window.step != lastStep else { return }
        apply(releasingAll: false)
    }

    /// The part-relative ranges of the current part to keep resident. Before a loop's end
    /// the head's window stops `behind` past it: playback wraps there (what it reads past the
    /// end, the seam's crossfade and a stretcher's feed, is well within that), and clearing
    /// the loop makes what follows resident before the command reaches the render side.
    public static func keep(position: Int64, length: Int64, loop: Range<Int64>?, window: Window) -> [Range<Int64>] {
        var ranges: [Range<Int64>] = []
        var ahead = position + window.ahead
        if let loop, position < loop.upperBound { ahead = min(ahead, loop.upperBound + window.behind) }
        let lo = max(0, position - window.behind), hi = min(length, ahead)
        if lo < hi { ranges.append(lo..<hi) }
        if let loop {
            let end = loop.count <= window.wholeLoop ? loop.upperBound : loop.lowerBound + window.ahead
            ranges.append(loop.lowerBound..<min(end, length))
        }
        return merge(ranges)
    }

    /// Sorted, non-overlapping, non-empty ranges covering the same frames.
    static func merge(_ ranges: [Range<Int64>]) -> [Range<Int64>] {
        var merged: [Range<Int64>] = []
        for r in ranges.filter({ !$0.isEmpty }).sorted(by: { $0.lowerBound < $1.lowerBound }) {
            if let last = merged.last, r.lowerBound <= last.upperBound {
                merged[merged.count - 1] = last.lowerBound..<max(last.upperBound, r.upperBound)
            } else {
                merged.append(r)
            }
        }
        return merged
    }

    /// The gaps of sorted, merged `keep` within `0..<total`.
    static func complement(_ keep: [Range<Int64>], total: Int64) -> [Range<Int64>] {
        var gaps: [Range<Int64>] = []
        var cursor: Int64 = 0
        for r in keep {
            if r.lowerBound > cursor { gaps.append(cursor..<r.lowerBound) }
            cursor = max(cursor, r.upperBound)
        }
        if cursor < total { gaps.append(cursor..<total) }
        return gaps
    }

    /// Keeps what the current and the next part need and gives back the rest: on a step of
    /// the window (`releasingAll` false) only what the last `apply` kept and no longer is,
    /// once a second with the head; on a load, a jump, a loop or a next part (true) the whole
    /// of each mapping but what is kept, so that pages read outside the window (the render
    /// side ahead of a seek, a part played before) are cleaned up then. The whole complement
    /// on every step was two syscalls walking most of the file (13.6 MB of a 3-minute part)
    /// every second, for pages that were given back already.
    private func apply(releasingAll: Bool = true) {
        lastStep = position / window.step
        // Two parts may be cuts of one file: collect what to keep per mapping.
        var plan: [(media: MappedPCM, keep: [Range<Int64>])] = []
        func add(_ media: MappedPCM, _ ranges: [Range<Int64>]) {
            if let i = plan.firstIndex(where: { $0.media === media }) {
                plan[i].keep += ranges
            } else {
                plan.append((media, ranges))
            }
        }
        if let current {
            let keep = Self.keep(position: position, length: current.length, loop: loop, window: window)
            add(current.media, keep.map { ($0.lowerBound + current.start)..<($0.upperBound + current.start) })
        }
        if let next {
            add(next.media, [next.start..<(next.start + min(next.length, window.nextStart))])
        }
        for (media, ranges) in plan {
            let keep = Self.merge(ranges)
            let id = ObjectIdentifier(media)
            let before = releasingAll ? nil : kept[id]
            for gap in Self.released(before: before, keep: keep, total: media.frames, margin: media.framesPerPage) {
                media.release(gap)
            }
            kept[id] = keep
            var allLocked = true
            for range in Self.subtract(locked[id] ?? [], from: keep) where !media.prefault(range) { allLocked = false }
            // Where locking is refused the pages are only touched: touched again each step.
            locked[id] = allLocked ? keep : nil
        }
    }

    private func releaseAll(_ media: MappedPCM) {
        media.release(0..<media.frames)
        locked[ObjectIdentifier(media)] = nil
        kept[ObjectIdentifier(media)] = nil
    }

    /// What to give back when sorted, merged `keep` is kept of a mapping of `total` frames:
    /// with `before` (what the last `apply` kept) nil, everything else; otherwise only what
    /// left, with `margin` frames (a page's) more at each side outside `keep`: a page that
    /// straddled an edge of `before` was kept then and may be wholly outside now (a release
    /// drops only whole pages).
    public static func released(before: [Range<Int64>]?, keep: [Range<Int64>], total: Int64,
                                margin: Int64) -> [Range<Int64>] {
        guard let before else { return complement(keep, total: total) }
        let left = subtract(keep, from: before)
        let widened = left.map { max(0, $0.lowerBound - margin)..<min(total, $0.upperBound + margin) }
        return subtract(keep, from: merge(widened))
    }

    /// The parts of sorted, merged `ranges` that sorted, merged `held` does not cover: what
    /// a step of the window has to lock.
    public static func subtract(_ held: [Range<Int64>], from ranges: [Range<Int64>]) -> [Range<Int64>] {
        var result: [Range<Int64>] = []
        for r in ranges {
            var cursor = r.lowerBound
            for h in held where h.upperBound > cursor && h.lowerBound < r.upperBound {
                if h.lowerBound > cursor { result.append(cursor..<h.lowerBound) }
                cursor = max(cursor, h.upperBound)
            }
            if cursor < r.upperBound { result.append(cursor..<r.upperBound) }
        }
        return result
    }
}
