/// The render function's whole state at one output frame, as plain data: a renderer
/// restored to it renders exactly what it rendered from that frame on (given the same
/// commands). The real-time engine keeps one per render chunk of the device buffer, so it
/// can rewind the device and re-render from a frame it has already written.
///
/// Copying one is a plain memory copy (no references, no allocation). It points into
/// storage of the `Renderer` it was taken from (clicks, report buffer) and into PCM the
/// control side keeps mapped: restore it only into that renderer.
public struct RenderSnapshot: @unchecked Sendable {
    var state: RenderState

    /// The output frame it was taken at (`Renderer.clock` then).
    public var clock: Int64 { state.clock }
    /// The part-relative position then (`Renderer.position`).
    public var position: Int64 { state.position }
    /// The epoch of the last command applied before it.
    public var epoch: UInt32 { state.epoch }
}

extension Renderer {
    /// The state now. Real-time safe.
    public func snapshot() -> RenderSnapshot {
        RenderSnapshot(state: state)
    }

    /// Goes back to `snapshot`, taken from this renderer: the clock, the voices, ramps,
    /// loop, countdown and volume are as they were then. Reports not yet drained are
    /// forgotten (they belong to frames being rendered again); the count of dropped
    /// reports and the stretch voices are kept. Real-time safe.
    public mutating func restore(_ snapshot: RenderSnapshot) {
        let dropped = state.droppedReports
        // Stretch voices attached after the snapshot stay: the snapshot's streams (if any)
        // ran on the same ones.
        let pool = state.pool
        state = snapshot.state
        state.reportCount = 0
        state.droppedReports = dropped
        state.pool = pool
    }
}
