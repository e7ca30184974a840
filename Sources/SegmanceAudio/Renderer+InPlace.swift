// The render thread reaches the renderer through its context's unsafe pointer. Reading a
// property there (`c.pointee.renderer.clock`) copied the whole renderer (792 bytes) to the
// stack for each read: a getter in another module takes a struct this large by reference to
// a copy. With four reads a 128-frame chunk, a deep-buffer refill (48 chunks) copied ~150 KB,
// three times the audio it wrote. A mutating method takes the renderer where it is.
extension Renderer {
    /// `clock`, read in place (for the render thread, through a pointer).
    public mutating func clockInPlace() -> Int64 { state.clock }
    /// `position`, read in place.
    public mutating func positionInPlace() -> Int64 { state.position }
    /// `epoch`, read in place.
    public mutating func epochInPlace() -> UInt32 { state.epoch }
    /// `reportCount`, read in place.
    public mutating func reportCountInPlace() -> Int { state.reportCount }
    /// `report(at:)`, read in place.
    public mutating func reportInPlace(at index: Int) -> RenderReport { report(at: index) }
    /// `historyCount`, read in place.
    public mutating func historyCountInPlace() -> Int { state.historyCount }
    /// `playedSpan(at:)`, read in place.
    public mutating func playedSpanInPlace(at index: Int) -> PlayedSpan { playedSpan(at: index) }
    /// `snapshot()`, taken in place (the snapshot itself is a copy of the state, as it must be).
    public mutating func snapshotInPlace() -> RenderSnapshot { snapshot() }
    /// Spares the stream starts have taken so far (`StretchPool.sparesTaken`), read in place:
    /// the render thread wakes the control side to reset them.
    public mutating func sparesTakenInPlace() -> Int { state.pool.sparesTaken }
    /// `stretchGuardFrames(before:)`, read in place.
    public mutating func stretchGuardFramesInPlace(before next: RenderCommand?) -> Int {
        stretchGuardFrames(before: next)
    }
}
