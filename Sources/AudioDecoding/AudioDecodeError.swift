/// Why an audio file could not be decoded. `description` is the reason text shown to
/// the performer (the stick scanner prefixes the file's path).
public struct AudioDecodeError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Reason: Equatable, Sendable {
        /// The file has 0 bytes.
        case empty
        /// The file ends before the audio its header announces.
        case truncated(String)
        /// Recognised container, but the decoder cannot make sense of it.
        case damaged(String)
        /// Not audio at all (a text file, an unknown binary).
        case notAudio(String)
        /// An audio format no decoder here reads, by name ("MIDI").
        case unsupported(String)
        /// Encrypted audio (a FairPlay `.m4p` purchase, common encryption): what protects it.
        case copyProtected(String)
        /// The file cannot be opened or read (permissions, I/O error, missing).
        case unreadable(String)
        /// Decoded fine but holds no frames.
        case noAudio
        /// The sample-rate converter failed.
        case conversion(String)
    }

    public var path: String
    public var reason: Reason

    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// The reason alone, e.g. "empty file (0 bytes)".
    public var reasonText: String {
        switch reason {
        case .empty: "empty file (0 bytes)"
        case .truncated(let detail): "truncated file: \(detail)"
        case .damaged(let detail): "damaged audio file: \(detail)"
        case .notAudio(let detail): "not an audio file (\(detail))"
        case .unsupported(let name): AudioFormats.unsupportedReason(name)
        case .copyProtected(let detail):
            "copy-protected (\(detail)): only the app it was bought in can play it; use a copy without DRM"
        case .unreadable(let detail): "cannot read the file: \(detail)"
        case .noAudio: "the file holds no audio (0 frames)"
        case .conversion(let detail): "sample-rate conversion failed: \(detail)"
        }
    }

    public var description: String { "\(path): \(reasonText)" }
}
