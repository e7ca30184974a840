/// Something for the edges to do.
public enum Effect: Equatable, Sendable {
    /// A command for the audio side, with the epoch it opens (see `AudioCommand`).
    case audio(AudioCommand, epoch: UInt32)
    /// Write this to the library (see `Persist` for when the core asks).
    case persist(Persist)
    /// Import the stick mounted at this path (off the control thread; progress comes back
    /// as `.importProgress`, the end as `.importFinished`).
    case importStick(path: String)
    /// Stop the import under way: its stick is gone. The routine in progress is abandoned whole.
    case cancelImport
    /// Write the routines changed on the box to the stick that is in (*Save to stick*);
    /// the edges say on the screen how it went.
    case saveToStick
}
