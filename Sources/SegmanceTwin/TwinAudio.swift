import SegmanceAudio
import SegmanceCore

/// The twin's audio side: the render function called directly, in virtual time.
public final class TwinAudio: AudioEngine {
    private var renderer: Renderer
    /// When set, every command sent is kept in `sentCommands` with the frame it applies at,
    /// so a run can be replayed into another engine frame for frame.
    public var recordsCommands = false
    /// The commands sent while `recordsCommands` was set, in order.
    public private(set) var sentCommands: [TimedCommand] = []

    public init(sampleRate: Int, config: RenderConfig) {
        renderer = Renderer(sampleRate: sampleRate, config: config)
    }

    public func send(_ command: StampedCommand) {
        if recordsCommands { sentCommands.append(TimedCommand(command, frame: renderer.clock)) }
        renderer.apply(command)
    }

    /// Frames between rendering and sounding, as a device's buffer holds them (0: the
    /// twin's output sounds the moment it is rendered). Only where a control hears the
    /// music (`heard(at:)`) depends on it: the box's rehearsal gives it the daemon's.
    public var latencyFrames: Int64 = 0

    /// Output frames rendered so far.
    public var clock: Int64 { renderer.clock }

    public func takeReports() -> [AudioReport] { renderer.takeReports().map(\.report) }

    public var position: (frame: Int64, epoch: UInt32) { (renderer.position, renderer.epoch) }

    /// Virtual time `time` (ns) is output frame `time · rate / 10⁹`, which sounds the
    /// output rendered `latencyFrames` before it. Nil for a frame not rendered yet.
    public func heard(at time: Int64) -> HeardFrame? {
        let frame = time * Int64(renderer.sampleRate) / 1_000_000_000 - latencyFrames
        guard time >= 0, frame >= 0, frame < renderer.clock else { return nil }
        return renderer.heard(atOutput: frame)
    }

    /// Renders one period into `buffer` (interleaved stereo Float).
    public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        renderer.render(into: buffer, frames: frames)
    }
}
