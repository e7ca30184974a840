import SegmanceAppliance
import SegmanceLibrary
import StickTransfer

extension Appliance {
    /// An appliance whose audio side is the twin's direct renderer (`TwinAudio`), playing
    /// from `library` (a fresh temporary one when nil) and importing with `importer` (in
    /// line when nil).
    public convenience init(_ configuration: Configuration, library: Library? = nil,
                            importer: ImportRunner? = nil) throws {
        try self.init(
            configuration, audio: TwinAudio(sampleRate: configuration.sampleRate, config: configuration.render),
                      library: library, importer: importer)
    }

    /// Renders one period with the twin's renderer, then feeds the reports to the core.
    public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        guard let twin = audio as? TwinAudio else { preconditionFailure("render(into:) drives the twin's audio only") }
        twin.render(into: buffer, frames: frames)
        pollAudio()
    }
}
