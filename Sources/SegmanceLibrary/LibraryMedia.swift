import SegmanceCore

/// The library's media as playback needs it: each part's PCM mapped from the store.
///
/// Files are mapped on first use and stay mapped while this object lives, because the
/// render side may hold a pointer into any PCM a command named. Only the pages
/// `PlaybackResidency` keeps count toward the resident set; the address space holds the
/// parts played in this session (fine on 64-bit boards).
public final class LibraryMedia {
    public let library: Library
    private var mapped: [String: MappedPCM] = [:]

    public init(library: Library) { self.library = library }

    /// The mapped media of `part`, checked to contain it.
    public func segment(_ part: PartAudio) throws -> PlaybackResidency.Segment {
        let hash = part.audio.id
        let media: MappedPCM
        if let known = mapped[hash] {
            media = known
        } else {
            guard let frames = try library.mediaFrames(hash) else {
                throw LibraryError(directory: library.directory, action: "play \(hash)", reason: "no such media")
            }
            media = try library.store.map(hash, frames: frames)
            mapped[hash] = media
        }
        guard part.start >= 0, part.length > 0, part.start + part.length <= media.frames else {
            throw LibraryError(directory: library.directory, action: "play \(hash)",
                               reason: "frames \(part.start)..<\(part.start + part.length) "
                                   + "are outside its \(media.frames)")
        }
        return PlaybackResidency.Segment(media: media, start: part.start, length: part.length)
    }

    /// How many media files are mapped.
    public var mappedCount: Int { mapped.count }
}
