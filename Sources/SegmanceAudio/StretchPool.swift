import Atomics
import RubberBand

/// What fully determines a stretched stream: the PCM, the source frame its output frame 0
/// is, and the speed. Two streams with the same key have the same samples.
struct StreamKey: Equatable, @unchecked Sendable {
    var base: UnsafePointer<Int16>?
    var frames: Int64
    var origin: Int64
    var speed: Int32
}

/// A stream's recent output, and the stretcher running it while it has one.
///
/// Output frame k of the stream is kept in `ring` at `k % ringFrames` while
/// `produced - ringFrames <= k < produced`: a renderer restored to an earlier snapshot
/// (the deep-buffer mode's rewind) reads the frames again from there instead of running
/// the stretcher, whose C++ state cannot be snapshotted. A stream that has left the main
/// voice (a crossfade partner, a fade-out) only reads frames already in its ring, so its
/// stretcher can go to another stream (`engine` -1): there are fewer stretchers than slots.
struct StretchSlot: @unchecked Sendable {
    let ring: UnsafeMutablePointer<Float>
    /// The stretcher running this stream (an index into the pool's engines), -1 for none.
    var engine: Int32 = -1
    var key = StreamKey(base: nil, frames: 0, origin: 0, speed: 0)
    var valid = false
    /// Next source frame to feed (part-relative; before 0 or past the end feeds silence).
    var fed: Int64 = 0
    /// Output frames of the stream made so far.
    var produced: Int64 = 0
    /// Output frames still to drop: the stretcher's start delay.
    var skip = 0
    /// The renderer's clock when the stream started (the oldest free slot is reused first).
    var started: Int64 = 0
}

/// One Rubber Band stretcher of a pool, and the slot whose stream it runs (-1: none).
struct StretchEngine: @unchecked Sendable {
    var stretcher: TimeStretcher.Handle
    var owner: Int32 = -1
}

/// The stretch voices of a renderer, as plain data (pointers into a `StretchStorage`):
/// shared by every copy of the state (the snapshots), used by one thread at a time. It can
/// cross the engine's command ring: the control side makes the storage when the speed
/// first leaves 100 % and hands the pool to the render side (`Renderer.attach`).
///
/// `count` slots (a stream's ring each: one per voice that can sound at once) share
/// `engineCount` stretchers (`StretchPool.engines`: two, ~2 MB resident each): only the main
/// voice's stream and a loop's next pass, started ahead of its seam, run a stretcher; a
/// stream that leaves the main voice has the frames it still needs in its ring already
/// (`RenderState.streamLookahead`).
public struct StretchPool: @unchecked Sendable {
    /// Source frames fed per `process` call: a fixed block, so a stream's output does not
    /// depend on how the render calls split the timeline.
    static let block = 512
    /// Output frames kept per stream when the renderer's configuration does not ask for
    /// more (`RenderConfig.stretchRingFrames`): a 1024 × 8 buffer and a stretcher's burst
    /// (8,192). The twin, which never rewinds, keeps this much; an engine whose buffer is
    /// deeper keeps more (`RealtimeAudioEngine`), and may then reuse a stream the twin
    /// restarts (a restarted Rubber Band stretcher's output depends on what it ran before).
    public static let defaultRingFrames = 16_384
    /// What a ring keeps beyond the buffer a rewind reaches back through: a stretcher's
    /// output runs ahead of what the render asked for by up to a burst.
    public static let burstFrames = 8_192

    /// Stretchers a pool has at most: the main voice's stream and a loop's next pass.
    public static let engines = 2
    /// Spare stretchers, where a reset calls the heap: the starts of one refill before the
    /// control side, woken, resets the ones they swapped out. A command's start and a loop's
    /// next pass started ahead of each seam: a 10,000-frame loop at 150 % has two seams in a
    /// refill of a sixth of a second (with two spares, `RewindTests` under load saw one start
    /// find none clean).
    public static let spareCount = 3
    /// The spares a pool keeps unless told: `spareCount` where the library's reset calls the
    /// heap, none where it does not.
    public static let defaultSpares = TimeStretcher.resetCallsTheHeap ? spareCount : 0
    /// The Rubber Band version built against, for messages.
    public static let library = "Rubber Band \(TimeStretcher.libraryVersion)"

    /// Where a reset calls the heap (`TimeStretcher.resetCallsTheHeap`), a stream starts on
    /// a spare stretcher reset ahead of time (`spares`): the start swaps it with the engine's
    /// and leaves that one to be reset, which the control side does
    /// (`StretchStorage.resetUsedSpares`), or the start itself when no control side does
    /// (the twin, a warm-up). With no spare clean, the start resets the engine's own
    /// stretcher (`resetsAtStart` counts those). No spares where a reset does not call the
    /// heap: the start resets in place.
    let spares: StretcherSpares

    let slots: UnsafeMutablePointer<StretchSlot>
    /// The stretch voices (slots).
    public let count: Int
    let engines: UnsafeMutablePointer<StretchEngine>
    /// The stretchers the slots share.
    public let engineCount: Int
    /// Deinterleaved scratch: input left/right, output left/right, `block · 4` each.
    let scratch: UnsafeMutablePointer<Float>
    /// Four counters: [0] the frames a voice played as silence for want of a stretcher (every
    /// one held by a stream that needs it: 0 unless more streams need one at once than there
    /// are), [1] the blocks fed to the stretchers (`pump`), for tests of where the work falls,
    /// [2] `resetsAtStart`, [3] `sparesTaken`.
    let counters: UnsafeMutablePointer<Int>
    /// Output frames kept per stream: how far back a rewind can read a stream again
    /// (`RenderConfig.stretchRingFrames`).
    var ringFrames = Int64(StretchPool.defaultRingFrames)

    /// No stretch voices: the speed stays 100 %.
    public static let empty = StretchPool(spares: .none,
                                          slots: UnsafeMutablePointer(bitPattern: 16)!, count: 0,
                                          engines: UnsafeMutablePointer(bitPattern: 16)!, engineCount: 0,
                                          scratch: UnsafeMutablePointer(bitPattern: 16)!,
                                          counters: UnsafeMutablePointer(bitPattern: 16)!)

    /// Frames a voice played as silence for want of a stretcher (`counters`).
    public var starvedFrames: Int { count == 0 ? 0 : counters[0] }
    /// Blocks fed to the stretchers so far (`counters`).
    public var pumpedBlocks: Int { count == 0 ? 0 : counters[1] }
    /// Streams started on a stretcher reset by the start itself, where spares are kept: none
    /// was clean (`counters`).
    public var resetsAtStart: Int { count == 0 ? 0 : counters[2] }
    /// Spares the stream starts have taken so far (`counters`, the render side's).
    public var sparesTaken: Int { count == 0 ? 0 : counters[3] }

    /// Whether there are no stretch voices.
    public var isEmpty: Bool { count == 0 }

    /// Forgets every slot's stream (after a warm-up on scratch PCM the storage outlives),
    /// and the warm-up's starved frames.
    func invalidate() {
        if count > 0 {
            counters[0] = 0
            counters[1] = 0
            counters[2] = 0
            counters[3] = 0
        }
        var i = 0
        while i < count {
            slots[i].valid = false
            i &+= 1
        }
    }

    var scratchFrames: Int { Self.block * 4 }

    /// A stretcher for slot `i`: its own, else one no slot holds, else the one held by the
    /// slot that started longest ago, of those not in `protected` (a bit per slot). -1 when
    /// every stretcher is held by a protected slot.
    func engine(for i: Int, protected: UInt32) -> Int {
        let own = slots[i].engine
        if own >= 0 { return Int(own) }
        var best = -1
        var e = 0
        while e < engineCount {
            let owner = engines[e].owner
            if owner < 0 { return e }
            if protected & (1 << UInt32(owner)) == 0
                && (best < 0 || slots[Int(owner)].started < slots[Int(engines[best].owner)].started) { best = e }
            e &+= 1
        }
        return best
    }

    /// Starts the stream `key` in slot `i` on a stretcher (`engine(for:protected:)`; the slot
    /// that held it keeps what is in its ring): the stretcher is reset and fed the source
    /// frames before the origin (its start pad) so that after its start delay, output
    /// frame 0 is the origin's audio. False (nothing started) when no stretcher is free of
    /// `protected`.
    /// `inPlace`: reset the engine's own stretcher, spares or not (the warm-up).
    @discardableResult
    func start(_ i: Int, _ key: StreamKey, clock: Int64, protected: UInt32 = 0, inPlace: Bool = false) -> Bool {
        let e = engine(for: i, protected: protected)
        guard e >= 0 else { return false }
        let s = slots + i
        let previous = engines[e].owner
        if previous >= 0 && Int(previous) != i { slots[Int(previous)].engine = -1 }
        engines[e].owner = Int32(i)
        s.pointee.engine = Int32(e)
        let h = fresh(e, ratio: 100.0 / Double(key.speed), inPlace: inPlace)
        s.pointee.key = key
        s.pointee.valid = true
        s.pointee.fed = key.origin &- Int64(h.startPad)
        s.pointee.produced = 0
        s.pointee.skip = h.startDelay
        s.pointee.started = clock
        return true
    }

    /// Engine `e`'s stretcher, reset and set to `ratio`: a clean spare swapped in where spares
    /// are kept, else its own reset here.
    private func fresh(_ e: Int, ratio: Double, inPlace: Bool) -> TimeStretcher.Handle {
        if spares.count == 0 || inPlace {
            let h = engines[e].stretcher
            // The ratio before the reset: set after it, Rubber Band 3.1's R3 glides from the
            // previous stream's ratio and the samples would depend on what the slot played.
            h.setTimeRatio(ratio)
            h.reset()
            return h
        }
        let k = spares.next()
        if k < 0 {
            counters[2] &+= 1
            StretcherSpares.reset(engines[e].stretcher)
        } else {
            let taken = spares.stretchers[k]
            spares.stretchers[k] = engines[e].stretcher
            engines[e].stretcher = taken
            spares.release(k)
            counters[3] &+= 1
        }
        let h = engines[e].stretcher
        h.setTimeRatio(ratio)
        return h
    }

    /// Feeds one block to slot `i` (which has a stretcher) and moves its output to the ring.
    func pump(_ i: Int) {
        let s = slots + i
        let h = engines[Int(s.pointee.engine)].stretcher
        let key = s.pointee.key
        let inL = scratch
        let inR = scratch + Self.block
        let outL = scratch + Self.block &* 2
        let outR = outL + scratchFrames
        var j = 0
        var f = s.pointee.fed
        while j < Self.block {
            if let base = key.base, f >= 0, f < key.frames {
                let x = Int(truncatingIfNeeded: f) &* 2
                inL[j] = Float(base[x]) * Voice.scale
                inR[j] = Float(base[x &+ 1]) * Voice.scale
            } else {
                inL[j] = 0
                inR[j] = 0
            }
            j &+= 1
            f &+= 1
        }
        s.pointee.fed = f
        counters[1] &+= 1
        h.process(left: UnsafePointer(inL), right: UnsafePointer(inR), frames: Self.block)
        while true {
            let ready = h.available
            if ready <= 0 { break }
            let n = h.retrieve(left: outL, right: outR, frames: ready < scratchFrames ? ready : scratchFrames)
            if n <= 0 { break }
            var k = 0
            if s.pointee.skip > 0 {
                k = n < s.pointee.skip ? n : s.pointee.skip
                s.pointee.skip &-= k
            }
            while k < n {
                let at = Int(truncatingIfNeeded: s.pointee.produced % ringFrames) &* 2
                s.pointee.ring[at] = outL[k]
                s.pointee.ring[at &+ 1] = outR[k]
                s.pointee.produced &+= 1
                k &+= 1
            }
        }
    }

    /// The slot running `key` with output frame `k` still in its ring (or yet to come, with
    /// a stretcher to make it), or -1. With `running`, only a slot whose stream still has its
    /// stretcher (one that has lost it would be made again part-way once its ring runs out,
    /// and a stretcher's output depends on what it ran before: not the same samples on).
    func find(_ key: StreamKey, at k: Int64, hint: Int32, running: Bool = false) -> Int {
        if hint >= 0 && Int(hint) < count && holds(Int(hint), key, k, running) { return Int(hint) }
        var i = 0
        while i < count {
            if holds(i, key, k, running) { return i }
            i &+= 1
        }
        return -1
    }

    @inline(__always)
    func holds(_ i: Int, _ key: StreamKey, _ k: Int64, _ running: Bool) -> Bool {
        let s = slots + i
        return s.pointee.valid && s.pointee.key == key && k >= s.pointee.produced &- ringFrames
            && (s.pointee.engine >= 0 || !running && k < s.pointee.produced)
    }

    /// A slot to start a stream in: an unused one, else the oldest not in `busy` (a bit
    /// per slot); -1 when every slot is busy.
    func free(busy: UInt32) -> Int {
        var best = -1
        var i = 0
        while i < count {
            if busy & (1 << UInt32(i)) == 0 {
                if !slots[i].valid { return i }
                if best < 0 || slots[i].started < slots[best].started { best = i }
            }
            i &+= 1
        }
        return best
    }

    /// Output frame `k` of slot `i`'s stream (running it on as far as needed; silence past
    /// what it made when it has no stretcher).
    @inline(__always)
    func frame(_ i: Int, _ k: Int64) -> (Float, Float) {
        let s = slots + i
        var idle = 0
        while s.pointee.produced <= k {
            if s.pointee.engine < 0 {
                counters[0] &+= 1
                return (0, 0)
            }
            let before = s.pointee.produced
            pump(i)
            // A stretcher that stops giving output must not hold the render thread.
            if s.pointee.produced == before {
                idle &+= 1
                if idle > 64 { return (0, 0) }
            } else {
                idle = 0
            }
        }
        let at = Int(truncatingIfNeeded: k % ringFrames) &* 2
        return (s.pointee.ring[at], s.pointee.ring[at &+ 1])
    }
}

/// Owns the stretchers, the slots, their rings and the scratch of a renderer's pool; frees
/// them when the renderer (or, for a real-time engine, the engine) goes.
public final class StretchStorage: @unchecked Sendable {
    let stretchers: [TimeStretcher]
    /// The voices, for `Renderer.attach`.
    public let pool: StretchPool

    private init(stretchers: [TimeStretcher], pool: StretchPool) {
        self.stretchers = stretchers
        self.pool = pool
    }

    /// Forgets every stream the voices ran (a warm-up's, on PCM about to be freed), so no
    /// later stream can be mistaken for one of them. Not while a renderer uses them.
    public func forgetStreams() { pool.invalidate() }

    /// Lets the control side reset the spares a start swapped out (`resetUsedSpares`), from
    /// now on: call before the pool goes to the render thread.
    public func resetSparesOnTheControlSide() {
        if pool.spares.count > 0 { pool.spares.mode[0] = 1 }
    }

    /// Resets the spares the render side swapped out since the last call (the control side,
    /// often enough that one is clean at each start); returns how many.
    @discardableResult
    public func resetUsedSpares() -> Int { pool.spares.resetUsed() }

    /// Spare stretchers kept (`StretchPool.spares`).
    public var spareCount: Int { pool.spares.count }

    deinit {
        pool.spares.free()
        for i in 0..<pool.count { pool.slots[i].ring.deallocate() }
        pool.slots.deinitialize(count: pool.count)
        pool.slots.deallocate()
        pool.engines.deinitialize(count: pool.engineCount)
        pool.engines.deallocate()
        pool.scratch.deallocate()
        pool.counters.deallocate()
    }

    /// Creates `count` slots with their rings and up to `StretchPool.engines` stretchers for
    /// them, and runs each stretcher at both extreme speeds so that every buffer it will ever
    /// use exists (and is touched) before the render thread calls it. Nil for no slots, or
    /// when a stretcher cannot be created (the renderer then stays at 100 %). Allocates: call
    /// off the render thread.
    /// `ringFrames`: output frames kept per stream (`RenderConfig.stretchRingFrames`).
    /// `spares`: stretchers reset ahead of a start (`StretchPool.spares`): where a reset calls
    /// the heap.
    public static func make(count: Int, sampleRate: Int, engine: TimeStretcher.Engine,
                            ringFrames: Int = StretchPool.defaultRingFrames,
                            spares: Int = StretchPool.defaultSpares)
        -> StretchStorage? {
        make(count: count, sampleRate: sampleRate, engine: engine, engines: StretchPool.engines, ringFrames: ringFrames,
             spares: spares)
    }

    /// As above with up to `engines` stretchers (a test compares one per slot with the pool's).
    static func make(count: Int, sampleRate: Int, engine: TimeStretcher.Engine, engines: Int,
                     ringFrames: Int = StretchPool.defaultRingFrames,
                     spares: Int = StretchPool.defaultSpares) -> StretchStorage? {
        let ringFrames = max(StretchPool.block * 2, ringFrames)
        guard count > 0 else { return nil }
        var made: [TimeStretcher] = []
        for _ in 0..<min(count, max(1, engines)) {
            guard let s = try? TimeStretcher(sampleRate: sampleRate, engine: engine, maxBlock: StretchPool.block)
            else { return nil }
            made.append(s)
        }
        guard !made.isEmpty else { return nil }
        var spare: [TimeStretcher] = []
        for _ in 0..<max(0, spares) {
            guard let s = try? TimeStretcher(sampleRate: sampleRate, engine: engine, maxBlock: StretchPool.block)
            else { return nil }
            spare.append(s)
        }
        let slots = UnsafeMutablePointer<StretchSlot>.allocate(capacity: count)
        for i in 0..<count {
            let ring = UnsafeMutablePointer<Float>.allocate(capacity: ringFrames * 2)
            ring.initialize(repeating: 0, count: ringFrames * 2)
            (slots + i).initialize(to: StretchSlot(ring: ring))
        }
        let engines = UnsafeMutablePointer<StretchEngine>.allocate(capacity: made.count)
        for (e, s) in made.enumerated() { (engines + e).initialize(to: StretchEngine(stretcher: s.handle)) }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: StretchPool.block * 10)
        scratch.initialize(repeating: 0, count: StretchPool.block * 10)
        let counters = UnsafeMutablePointer<Int>.allocate(capacity: 4)
        counters.initialize(repeating: 0, count: 4)
        let pool = StretchPool(spares: StretcherSpares.make(spare.map(\.handle)), slots: slots, count: count,
                               engines: engines, engineCount: made.count, scratch: scratch,
                               counters: counters, ringFrames: Int64(ringFrames))
        let storage = StretchStorage(stretchers: made + spare, pool: pool)
        guard storage.warmUp() else { return nil }
        return storage
    }

    /// Runs every stretcher from the state it was made in: no slot holds one, then slot i
    /// runs stretcher i through a burst of noise at 50, 150 and 75 %, and every stream is
    /// forgotten. At the making, so that every path of the stretcher runs, long enough at
    /// each speed (32 blocks) that its buffers have all been through once: with fewer, the
    /// stretcher keeps touching new pages for its first seconds of playing (about 0.3 MB
    /// each, measured), page faults on the render thread. And again after other work on
    /// them (`RenderWarmUp`): a reset Rubber Band R3 stretcher's output still depends on
    /// what it ran before, so a renderer whose stretchers had run the render code's warm-up
    /// would not play what the twin's fresh ones play. False when its scratch cannot be
    /// mapped. Not while a renderer uses them.
    @discardableResult
    public func warmUp() -> Bool {
        let noiseFrames = StretchPool.block * 32
        // The noise, in pages of its own.
        guard let noise = ScratchPages.map(Int16.self, count: noiseFrames * 2) else { return false }
        defer { ScratchPages.unmap(noise, count: noiseFrames * 2) }
        var seed: UInt32 = 12_345
        for j in 0..<(noiseFrames * 2) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise[j] = Int16(truncatingIfNeeded: seed >> 16) / 4
        }
        warmEngines(noise, frames: noiseFrames)
        // The spares too, a round at a time in the engines' places, then all reset (clean).
        var next = 0
        while next < pool.spares.count {
            var e = 0
            while e < pool.engineCount && next < pool.spares.count {
                swap(&pool.spares.stretchers[next], &pool.engines[e].stretcher)
                next += 1
                e += 1
            }
            warmEngines(noise, frames: noiseFrames)
        }
        pool.spares.makeAllClean()
        pool.invalidate()
        return true
    }

    /// Slot i starts on engine i (each slot's own first, then a free one), reset in place.
    private func warmEngines(_ noise: UnsafeMutablePointer<Int16>, frames noiseFrames: Int) {
        for i in 0..<pool.count {
            pool.slots[i].engine = -1
            pool.slots[i].valid = false
        }
        for e in 0..<pool.engineCount { pool.engines[e].owner = -1 }
        for i in 0..<pool.engineCount {
            for speed: Int32 in [50, 150, 75] {
                pool.start(
                    i, StreamKey(base: UnsafePointer(noise), frames: Int64(noiseFrames), origin: 0, speed: speed),
                           clock: 0, inPlace: true)
                _ = pool.frame(i, Int64(noiseFrames) * Int64(speed) / 100)
            }
        }
    }
}
