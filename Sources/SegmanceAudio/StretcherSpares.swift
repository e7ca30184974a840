import Atomics
import RubberBand

/// Stretchers reset ahead of time, so that a stream's start on the render thread resets
/// none where a reset calls the heap (`TimeStretcher.resetCallsTheHeap`). Plain data shared
/// by every copy of a pool. A spare is clean (reset at ratio 1: a start may take it) or
/// used (the stretcher a start swapped out: to be reset); its state is the hand-off between
/// the two sides, stored releasing and loaded acquiring, and each side touches a spare's
/// stretcher only in the state that is its own.
struct StretcherSpares: @unchecked Sendable {
    let stretchers: UnsafeMutablePointer<TimeStretcher.Handle>
    let states: UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>
    /// [0]: 1 when the control side resets used spares (`resetUsed`), 0 when a start resets
    /// the one it swapped out itself (no control side: the twin, a warm-up); set before the
    /// pool crosses to the render thread. [1]: the spare the next start takes (the render
    /// side's): in turn, so which stretcher a stream gets does not depend on when the control
    /// side resets (a reset 3.1 stretcher's samples depend on what it ran before).
    let mode: UnsafeMutablePointer<Int>
    let count: Int

    static let clean = 0
    static let used = 1

    /// No spares: a start resets its engine's stretcher in place.
    static let none = StretcherSpares(stretchers: UnsafeMutablePointer(bitPattern: 16)!,
                                      states: UnsafeMutablePointer(bitPattern: 16)!,
                                      mode: UnsafeMutablePointer(bitPattern: 16)!, count: 0)

    /// Spares holding `handles`, all clean (reset here). Allocates.
    static func make(_ handles: [TimeStretcher.Handle]) -> StretcherSpares {
        guard !handles.isEmpty else { return .none }
        let stretchers = UnsafeMutablePointer<TimeStretcher.Handle>.allocate(capacity: handles.count)
        stretchers.initialize(from: handles, count: handles.count)
        let states = UnsafeMutablePointer<UnsafeAtomic<Int>.Storage>.allocate(capacity: handles.count)
        states.initialize(repeating: UnsafeAtomic<Int>.Storage(clean), count: handles.count)
        let mode = UnsafeMutablePointer<Int>.allocate(capacity: 2)
        mode.initialize(repeating: 0, count: 2)
        for h in handles { reset(h) }
        return StretcherSpares(stretchers: stretchers, states: states, mode: mode, count: handles.count)
    }

    func free() {
        guard count > 0 else { return }
        stretchers.deinitialize(count: count)
        stretchers.deallocate()
        states.deinitialize(count: count)
        states.deallocate()
        mode.deinitialize(count: 2)
        mode.deallocate()
    }

    /// How a spare is made clean: reset at ratio 1, the stream's ratio set when it starts
    /// (from 3.2 on, the same stretcher state as the ratio set before the reset).
    @inline(__always)
    static func reset(_ h: TimeStretcher.Handle) {
        h.setTimeRatio(1)
        h.reset()
    }

    @inline(__always)
    private func state(_ k: Int) -> UnsafeAtomic<Int> { UnsafeAtomic(at: states + k) }

    /// The spare whose turn it is, when it is clean, or -1 (the render side).
    func next() -> Int {
        let k = mode[1]
        return state(k).load(ordering: .acquiring) == Self.clean ? k : -1
    }

    /// Spare `k`, taken, now holds the stretcher the start swapped out (the render side):
    /// reset here when no control side resets spares, else left to it; the turn moves on.
    func release(_ k: Int) {
        mode[1] = k + 1 == count ? 0 : k + 1
        if mode[0] == 0 {
            Self.reset(stretchers[k])
        } else {
            state(k).store(Self.used, ordering: .releasing)
        }
    }

    /// Resets every spare and makes it clean (no render side uses the pool).
    func makeAllClean() {
        if count > 0 { mode[1] = 0 }
        for k in 0..<count {
            Self.reset(stretchers[k])
            state(k).store(Self.clean, ordering: .releasing)
        }
    }

    /// Resets every used spare and makes it clean (the control side); returns how many.
    @discardableResult
    func resetUsed() -> Int {
        var done = 0
        for k in 0..<count where state(k).load(ordering: .acquiring) == Self.used {
            Self.reset(stretchers[k])
            state(k).store(Self.clean, ordering: .releasing)
            done += 1
        }
        return done
    }
}
