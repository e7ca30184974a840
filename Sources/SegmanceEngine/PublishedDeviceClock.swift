import Atomics

/// The device's clock for the control side: its readings, each "output frame f was at the
/// DAC at CLOCK_MONOTONIC t (ns)", the newest `capacity` in a ring of word pairs (t, f),
/// `count` in all, under a `Seqlock`. An event is placed with the reading in force at its
/// time, so one read late does not move across a jump of the device's clock (an xrun, a
/// stalled server).
struct PublishedDeviceClock: ~Copyable {
    /// Period by period, 2.7 s of readings at 128 frames; a press held half a second is
    /// still placed by the reading of its down edge.
    static let capacity = 1_024
    /// The renderer's rate, for projecting from a reading.
    let sampleRate: Int64
    private let words = SeqlockedWords(capacity: Self.capacity * 2)

    init(sampleRate: Int64) { self.sampleRate = sampleRate }

    @inline(__always)
    private func word(_ index: Int) -> UnsafeAtomic<Int64> { words.word(index) }

    /// Render thread: adds the reading "output frame `frame` was at the DAC at `time`".
    func append(time: Int64, frame: Int64) {
        let n = words.count.load(ordering: .relaxed)
        let w = (n % Self.capacity) &* 2
        words.seqlock.write {
            word(w).store(time, ordering: .relaxed)
            word(w &+ 1).store(frame, ordering: .relaxed)
            words.count.store(n &+ 1, ordering: .relaxed)
        }
    }

    /// Control side: the readings kept, oldest first.
    func readings() -> [(time: Int64, frame: Int64)] {
        words.seqlock.read {
            let n = words.count.load(ordering: .relaxed)
            var all: [(time: Int64, frame: Int64)] = []
            for i in max(0, n - Self.capacity)..<n {
                let w = (i % Self.capacity) * 2
                all.append((word(w).load(ordering: .relaxed), word(w + 1).load(ordering: .relaxed)))
            }
            return all
        }
    }

    /// Control side: the output frame at the DAC at CLOCK_MONOTONIC `time` (ns): projected at
    /// the rate from the newest reading at or before `time`, and no further than the next
    /// reading says the device had got by then — a device that stalled in between (a late
    /// cycle, a starved server) played less than the rate says. Nil for a time before the
    /// readings kept.
    func outputFrame(at time: Int64) -> Int64? {
        let (n, t, f, later) = words.seqlock.read { reading(at: time) }
        // Before every reading kept (or on another clock: an evdev device left on
        // CLOCK_REALTIME): not placed.
        guard n > 0, t <= time else { return nil }
        let elapsed = (time - t) * sampleRate
        // Rounded down, also before the reading.
        let frames = elapsed >= 0 ? elapsed / 1_000_000_000 : -((-elapsed + 999_999_999) / 1_000_000_000)
        let projected = f + frames
        if let later, later < projected { return max(f, later) }
        return projected
    }

    /// The count, the newest reading at or before `time` (or the oldest kept) and the frame
    /// of the reading after it, if any; read inside the seqlock.
    private func reading(at time: Int64) -> (count: Int, time: Int64, frame: Int64, later: Int64?) {
        let n = words.count.load(ordering: .relaxed)
        var t: Int64 = 0
        var f: Int64 = 0
        var later: Int64?
        var i = n - 1
        while i >= max(0, n - Self.capacity) {
            let w = (i % Self.capacity) * 2
            t = word(w).load(ordering: .relaxed)
            f = word(w + 1).load(ordering: .relaxed)
            if t <= time { break }
            later = f
            i -= 1
        }
        return (n, t, f, later)
    }
}
