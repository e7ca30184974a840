import SegmanceCore

/// The control side's view of the audio side: commands go in, reports come out. The twin
/// renders in the caller's thread (`TwinAudio`); the real-time engine renders on its own
/// thread and crosses over through a lock-free queue.
public protocol AudioEngine: AnyObject {
    /// Hands a command to the render side; it applies at the next period boundary.
    func send(_ command: StampedCommand)
    /// Reports the render side produced since the last call, oldest first.
    func takeReports() -> [AudioReport]
    /// Where playback is (part-relative frames) and the epoch of the last applied command.
    var position: (frame: Int64, epoch: UInt32) { get }
    /// What was sounding at the output at `time` (the time base of the input events: the
    /// monotonic clock on a board, virtual time in the twin), from the play history; nil
    /// when the audio side cannot say.
    func heard(at time: Int64) -> HeardFrame?
}
