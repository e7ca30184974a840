import SegmanceCore

/// A report from the render side and the output frame it belongs to.
public struct RenderReport: Equatable, Sendable {
    public var report: AudioReport
    /// The output frame (counted from the renderer's creation, see `Renderer.clock`) at
    /// which it happened: a tick's onset, the first frame of the new audio, …
    public var frame: Int64

    public init(_ report: AudioReport, frame: Int64) {
        self.report = report
        self.frame = frame
    }
}
