import RubberBand

/// What fully determines a stretched stream: the PCM, the source frame its output frame 0
/// is, and the speed. Two streams with the same key have the same samples.
struct StreamKey: Equatable, @unchecked Sendable {
    var base: UnsafePointer<Int16>?
    var frames: Int64
    var origin: Int64
    var speed: Int32
}

/// One stretcher and the recent output of the stream it is running.
///
/// Output frame k of the stream is kept in `ring` at `k % ringFrames` while
/// `produced - ringFrames <= k < produced`: a renderer restored to an earlier snapshot
/// (the deep-buffer mode's rewind) reads the frames again from there instead of running
/// the stretcher, whose C++ state cannot be snapshotted.
struct StretchSlot: @unchecked Sendable {
    let stretcher: TimeStretcher.Handle
    let ring: UnsafeMutablePointer<Float>
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

/// The stretch voices of a renderer, as plain data (pointers into a `StretchStorage`):
/// shared by every copy of the state (the snapshots), used by one thread at a time. It can
/// cross the engine's command ring: the control side makes the storage when the speed
/// first leaves 100 % and hands the pool to the render side (`Renderer.attach`).
public struct StretchPool: @unchecked Sendable {
    /// Source frames fed per `process` call: a fixed block, so a stream's output does not
    /// depend on how the render calls split the timeline.
    static let block = 512
    /// Output frames kept per stream: the deep buffer (8192) plus a stretcher's burst.
    static let ringFrames: Int64 = 16_384

    let slots: UnsafeMutablePointer<StretchSlot>
    /// The stretch voices.
    public let count: Int
    /// Deinterleaved scratch: input left/right, output left/right, `block · 4` each.
    let scratch: UnsafeMutablePointer<Float>

    /// No stretch voices: the speed stays 100 %.
    public static let empty = StretchPool(slots: UnsafeMutablePointer(bitPattern: 16)!, count: 0,
                                          scratch: UnsafeMutablePointer(bitPattern: 16)!)

    /// Whether there are no stretch voices.
    public var isEmpty: Bool { count == 0 }

    /// Forgets every slot's stream (after a warm-up on scratch PCM the storage outlives).
    func invalidate() {
        var i = 0
        while i < count {
            slots[i].valid = false
            i &+= 1
        }
    }

    var scratchFrames: Int { Self.block * 4 }

    /// Starts the stream `key` in slot `i`: the stretcher is reset and fed the source
    /// frames before the origin (its start pad) so that after its start delay, output
    /// frame 0 is the origin's audio.
    func start(_ i: Int, _ key: StreamKey, clock: Int64) {
        let s = slots + i
        let h = s.pointee.stretcher
        // The ratio before the reset: set after it, R3 glides from the previous stream's
        // ratio and the samples would depend on what the slot played before.
        h.setTimeRatio(100.0 / Double(key.speed))
        h.reset()
        s.pointee.key = key
        s.pointee.valid = true
        s.pointee.fed = key.origin &- Int64(h.startPad)
        s.pointee.produced = 0
        s.pointee.skip = h.startDelay
        s.pointee.started = clock
    }

    /// Feeds one block to slot `i` and moves its output to the ring.
    func pump(_ i: Int) {
        let s = slots + i
        let h = s.pointee.stretcher
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
                let at = Int(truncatingIfNeeded: s.pointee.produced % Self.ringFrames) &* 2
                s.pointee.ring[at] = outL[k]
                s.pointee.ring[at &+ 1] = outR[k]
                s.pointee.produced &+= 1
                k &+= 1
            }
        }
    }

    /// The slot running `key` with output frame `k` still in its ring (or yet to come), or -1.
    func find(_ key: StreamKey, at k: Int64, hint: Int32) -> Int {
        if hint >= 0 && Int(hint) < count {
            let s = slots + Int(hint)
            if s.pointee.valid && s.pointee.key == key && k >= s.pointee.produced &- Self.ringFrames { return Int(hint) }
        }
        var i = 0
        while i < count {
            let s = slots + i
            if s.pointee.valid && s.pointee.key == key && k >= s.pointee.produced &- Self.ringFrames { return i }
            i &+= 1
        }
        return -1
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

    /// Output frame `k` of slot `i`'s stream (running it on as far as needed).
    @inline(__always)
    func frame(_ i: Int, _ k: Int64) -> (Float, Float) {
        let s = slots + i
        var idle = 0
        while s.pointee.produced <= k {
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
        let at = Int(truncatingIfNeeded: k % Self.ringFrames) &* 2
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

    deinit {
        for i in 0..<pool.count { pool.slots[i].ring.deallocate() }
        pool.slots.deinitialize(count: pool.count)
        pool.slots.deallocate()
        pool.scratch.deallocate()
    }

    /// Creates `count` stretchers and their rings, and runs each at both extreme speeds so
    /// that every buffer it will ever use exists (and is touched) before the render thread
    /// calls it. Nil for no stretchers, or when one cannot be created (the renderer then
    /// stays at 100 %). Allocates: call off the render thread.
    public static func make(count: Int, sampleRate: Int, engine: TimeStretcher.Engine) -> StretchStorage? {
        var made: [TimeStretcher] = []
        for _ in 0..<count {
            guard let s = try? TimeStretcher(sampleRate: sampleRate, engine: engine, maxBlock: StretchPool.block)
            else { return nil }
            made.append(s)
        }
        guard !made.isEmpty else { return nil }
        let slots = UnsafeMutablePointer<StretchSlot>.allocate(capacity: made.count)
        for (i, s) in made.enumerated() {
            let ring = UnsafeMutablePointer<Float>.allocate(capacity: Int(StretchPool.ringFrames) * 2)
            ring.initialize(repeating: 0, count: Int(StretchPool.ringFrames) * 2)
            (slots + i).initialize(to: StretchSlot(stretcher: s.handle, ring: ring))
        }
        let scratch = UnsafeMutablePointer<Float>.allocate(capacity: StretchPool.block * 10)
        scratch.initialize(repeating: 0, count: StretchPool.block * 10)
        let pool = StretchPool(slots: slots, count: made.count, scratch: scratch)
        // Warm-up on a burst of noise, so every path of the stretcher runs, long enough at
        // each speed (32 blocks) that its buffers have all been through once: with fewer,
        // the stretcher keeps touching new pages for its first seconds of playing (about
        // 0.3 MB each, measured), page faults on the render thread.
        let noiseFrames = StretchPool.block * 32
        let noise = UnsafeMutablePointer<Int16>.allocate(capacity: noiseFrames * 2)
        defer { noise.deallocate() }
        var seed: UInt32 = 12_345
        for j in 0..<(noiseFrames * 2) {
            seed = seed &* 1_664_525 &+ 1_013_904_223
            noise[j] = Int16(truncatingIfNeeded: seed >> 16) / 4
        }
        for i in 0..<made.count {
            for speed: Int32 in [50, 150, 75] {
                pool.start(i, StreamKey(base: UnsafePointer(noise), frames: Int64(noiseFrames), origin: 0, speed: speed),
                           clock: 0)
                _ = pool.frame(i, Int64(noiseFrames) * Int64(speed) / 100)
            }
        }
        pool.invalidate()
        return StretchStorage(stretchers: made, pool: pool)
    }
}
