/// Something for the edges to do.
public enum Effect: Equatable, Sendable {
    /// A command for the audio side, with the epoch it opens (see `AudioCommand`).
    case audio(AudioCommand, epoch: UInt32)
}
