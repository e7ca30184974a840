import AudioDecoding
import Foundation
import SegmanceCore

/// Reads a folder laid out like a USB stick as an import would, keeping no audio:
/// `StickScanner` finds the routine folders, `RoutineBuilder` reads each one, every file is
/// decoded through to its end. Parts name their audio by its path relative to the stick root.
public struct StickChecker: Sendable {
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

    /// Reads and decodes everything under `root` (a stick labelled `label`), keeping no
    /// audio: the routines an import would make, and every problem it would meet, those of
    /// the stick's class.toml included (`segmance stick check`). Never throws: what fails is listed in `problems`.
    public func check(_ root: String, label: String? = nil) -> StickContent {
        let scan = StickScanner(limits: limits).scan(root, label: label)
        guard let realRoot = scan.root else { return StickContent(problems: scan.problems) }
        let decoder = CheckingDecoder(root: realRoot, decoder: SniffingDecoder(outputRate: outputRate))
        let builder = RoutineBuilder(root: realRoot, decoder: decoder)
        var routines: [Routine] = []
        var problems: [StickProblem] = []
        var notes: [StickProblem] = []
        for entry in scan.entries {
            switch entry {
            case .problem(let problem):
                problems.append(problem)
            case .routine(let source):
                // The checking decoder never throws: nothing aborts a routine here.
                guard let built = try? builder.build(source) else { continue }
                problems += built.problems
                notes += built.notes
                if let routine = built.routine { routines.append(routine) }
            }
        }
        // An import reads the class sets too: their problems are the stick's.
        if let classes = ClassFile.read(root: realRoot) { problems += classes.problems }
        return StickContent(routines: routines, problems: problems, notes: notes)
    }
}

/// Decodes each file once through to its end, keeping nothing but its length, named by its
/// path relative to the root.
final class CheckingDecoder: StickAudioDecoding {
    let root: String
    let decoder: SniffingDecoder
    private var results: [String: Result<DecodedAudio, AudioDecodeError>] = [:]

    init(root: String, decoder: SniffingDecoder) {
        self.root = root
        self.decoder = decoder
    }

    var outputRate: Int { decoder.outputRate }

    func decode(_ file: StickAudioFile) -> Result<DecodedAudio, AudioDecodeError> {
        let reference = AudioReference(StickPaths.relative(file.real, to: root))
        if let known = results[reference.id] { return known }
        let result = Result { () throws(AudioDecodeError) in
            do {
                return DecodedAudio(reference: reference, frames: try decoder.decode(file.real, into: DiscardingSink()))
            } catch {
                // A DiscardingSink never throws: every error is the file's.
                throw error as? AudioDecodeError ?? AudioDecodeError(path: file.real, reason: .unreadable("\(error)"))
            }
        }
        results[reference.id] = result
        return result
    }
}
