/// A render command with the output frame it applies at: the form in which a run's
/// commands are recorded (the twin, with `TwinAudio.recordsCommands`) and replayed into
/// another engine, so that both apply every command at the same frame.
public struct TimedCommand: Equatable, Sendable {
    public var command: StampedCommand
    /// The output frame (`Renderer.clock`) at which the command takes effect.
    public var frame: Int64

    public init(_ command: StampedCommand, frame: Int64) {
        self.command = command
        self.frame = frame
    }
}
