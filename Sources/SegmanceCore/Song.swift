/// A song of a routine made on the box: its audio and the title its part takes.
public struct Song: Equatable, Sendable {
    public var audio: AudioReference
    public var title: String
    public init(audio: AudioReference, title: String) {
        self.audio = audio
        self.title = title
    }
}
