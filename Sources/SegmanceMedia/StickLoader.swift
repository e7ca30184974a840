import Foundation
import SegmanceCore

/// Reads a folder laid out like a USB stick into routines with their audio decoded in
/// memory: `StickScanner` finds the routine folders, `RoutineBuilder` reads each one.
/// Parts name their audio by its path relative to the stick root.
public struct StickLoader: Sendable {
    /// The output sample rate audio is converted to.
    public var outputRate: Int
    /// What the scan looks at (folder depth, names, routines, files per routine).
    public var limits: StickLimits
    /// How many folder levels below the root are searched.
    public var maxDepth: Int {
        get { limits.maxDepth }
        set { limits.maxDepth = newValue }
    }

    public init(outputRate: Int = 48000, limits: StickLimits = StickLimits()) {
        self.outputRate = outputRate
        self.limits = limits
    }

    public init(outputRate: Int = 48000, maxDepth: Int) {
        self.init(outputRate: outputRate, limits: StickLimits(maxDepth: maxDepth))
    }

    /// Loads everything under `root` (a stick labelled `label`). Never throws: what fails
    /// is listed in `problems`.
    public func load(_ root: String, label: String? = nil) -> StickContent {
        read(root, label: label, keepAudio: true)
    }

    /// Reads and decodes everything under `root` as `load` does, but keeps no audio: what
    /// an import would do, and every problem it would meet (`segmance stick check`).
    public func check(_ root: String, label: String? = nil) -> StickContent {
        read(root, label: label, keepAudio: false)
    }

    private func read(_ root: String, label: String?, keepAudio: Bool) -> StickContent {
        let scan = StickScanner(limits: limits).scan(root, label: label)
        guard let realRoot = scan.root else { return StickContent(problems: scan.problems) }
        let decoder = MemoryDecoder(root: realRoot, decoder: SniffingDecoder(outputRate: outputRate), keepAudio: keepAudio)
        let builder = RoutineBuilder(root: realRoot, decoder: decoder)
        var routines: [Routine] = []
        var problems: [StickProblem] = []
        var notes: [StickProblem] = []
        for entry in scan.entries {
            switch entry {
            case .problem(let problem):
                problems.append(problem)
            case .routine(let source):
                // The memory decoder never throws: nothing aborts a routine here.
                guard let built = try? builder.build(source) else { continue }
                problems += built.problems
                notes += built.notes
                if let routine = built.routine { routines.append(routine) }
            }
        }
        var media: [AudioReference: PCMBuffer] = [:]
        for part in routines.flatMap(\.parts) { media[part.audio] = decoder.buffers[part.audio] }
        return StickContent(routines: routines, media: media, problems: problems, notes: notes)
    }
}

/// Decodes each file once into a `PCMBuffer` (or, not keeping audio, just through to
/// the end), named by its path relative to the root.
final class MemoryDecoder: StickAudioDecoding {
    let root: String
    let decoder: SniffingDecoder
    let keepAudio: Bool
    private(set) var buffers: [AudioReference: PCMBuffer] = [:]
    private var results: [String: Result<DecodedAudio, AudioDecodeError>] = [:]

    init(root: String, decoder: SniffingDecoder, keepAudio: Bool) {
        self.root = root
        self.decoder = decoder
        self.keepAudio = keepAudio
    }

    var outputRate: Int { decoder.outputRate }

    func decode(_ file: StickAudioFile) -> Result<DecodedAudio, AudioDecodeError> {
        let reference = AudioReference(StickPaths.relative(file.real, to: root))
        if let known = results[reference.id] { return known }
        let result = Result { () throws(AudioDecodeError) in
            guard keepAudio else {
                do {
                    return DecodedAudio(reference: reference, frames: try decoder.decode(file.real, into: DiscardingSink()))
                } catch {
                    // A DiscardingSink never throws: every error is the file's.
                    throw error as? AudioDecodeError ?? AudioDecodeError(path: file.real, reason: .unreadable("\(error)"))
                }
            }
            let buffer = try decoder.decode(file.real)
            buffers[reference] = buffer
            return DecodedAudio(reference: reference, frames: buffer.frames)
        }
        results[reference.id] = result
        return result
    }
}
