import Foundation
import SegmanceCore

/// A decoded audio file as a routine refers to it.
public struct DecodedAudio: Equatable, Sendable {
    /// What the parts cut from this file name (a stick path in memory, a content hash in the library).
    public var reference: AudioReference
    /// Frames at the output rate.
    public var frames: Int64

    public init(reference: AudioReference, frames: Int64) {
        self.reference = reference
        self.frames = frames
    }
}

/// Decodes the audio files of a stick somewhere: into memory, into the media store, nowhere.
public protocol StickAudioDecoding: AnyObject {
    /// The rate every file is converted to; manifest times are counted at it.
    var outputRate: Int { get }
    /// Decodes `file`. A returned failure fails the parts that use the file; a thrown error
    /// aborts the whole routine (a full disk, a stick pulled out, a cancelled import).
    func decode(_ file: StickAudioFile) throws -> Result<DecodedAudio, AudioDecodeError>
}

/// What became of one routine folder: the routine (nil when it failed) and every problem.
public struct RoutineBuild: Sendable {
    public var routine: Routine?
    public var problems: [StickProblem]
}

/// Turns one routine folder into a `Routine`: reads `routine.toml`, decodes the audio
/// through a `StickAudioDecoding`, checks cut points, loops and cues against the decoded
/// lengths. A bad audio file fails its part, a bad manifest fails its routine.
///
/// - Without a manifest, or with one that has no `[[part]]`, each audio file is a part,
///   in natural file-name order, titled with the name minus track number and extension.
/// - With `[[part]]` entries, exactly those parts exist, in that order; one file may be
///   cut into several parts (decoded once, shared through one `AudioReference`).
/// - `from`/`to` are positions in the file; a part's `loop` and its moves' `at` cues are
///   part-relative (0 is the part's `from`). Manifest paths must stay inside the folder.
public struct RoutineBuilder {
    /// The canonical stick root.
    public let root: String
    public let decoder: any StickAudioDecoding

    public init(root: String, decoder: any StickAudioDecoding) {
        self.root = root
        self.decoder = decoder
    }

    /// Builds the routine of `source`. Throws only what the decoder throws to abort.
    public func build(_ source: RoutineSource) throws -> RoutineBuild {
        var problems: [StickProblem] = []
        func problem(_ path: String, _ reason: String, line: Int? = nil) {
            let shown = path.isEmpty ? "." : path
            problems.append(StickProblem(path: shown, reason: line.map { "line \($0): \(reason)" } ?? reason, line: line))
        }
        let relative = source.relative
        var routine = Routine(title: source.title, parts: [])
        var manifest: Manifest?
        var manifestIssues: [Manifest.Issue] = []
        let manifestShown = StickPaths.join(relative, "routine.toml")
        // The count is given when the text alone was read; with the parts checked against
        // their audio the issues are listed above and the summary says "problems".
        func refuse(_ issues: [Manifest.Issue], title: String, checkedAgainstAudio: Bool = false) -> RoutineBuild {
            for issue in issues { problem(manifestShown, issue.message, line: issue.line) }
            let count = checkedAgainstAudio ? "problems" : Self.count(issues.count)
            problem(relative, "routine \"\(title)\" skipped: its routine.toml has \(count)")
            return RoutineBuild(routine: nil, problems: problems)
        }
        if let manifestPath = source.manifest {
            let bytes: [UInt8]
            switch ManifestFile.read(manifestPath) {
            case .failure(let refusal):
                problem(manifestShown, refusal.description)
                problem(relative, "routine \"\(source.title)\" skipped: its routine.toml is unusable")
                return RoutineBuild(routine: nil, problems: problems)
            case .success(let read):
                bytes = read
            }
            let reading = Manifest.parse(bytes, rate: decoder.outputRate)
            guard let parsed = reading.manifest else { return refuse(reading.issues, title: source.title) }
            manifest = parsed
            manifestIssues = reading.issues
            routine.title = parsed.title ?? source.title
            routine.subtitle = parsed.subtitle ?? ""
            routine.short = parsed.short
            routine.countdown = parsed.countdown
        }

        // Every part is checked, also when the manifest already has issues, so that the
        // performer sees every problem of the routine in one pass.
        if let manifest, !manifest.parts.isEmpty {
            let (parts, issues, failedAudio) = try manifestParts(manifest, folder: source.folder)
            for failed in failedAudio { problem(failed.shown, failed.reason) }
            let all = Self.inLineOrder(manifestIssues + issues)
            if !all.isEmpty { return refuse(all, title: routine.title, checkedAgainstAudio: !issues.isEmpty) }
            routine.parts = parts
        } else {
            for file in source.audio {
                switch try decode(file) {
                case .success(let audio):
                    routine.parts.append(Part(title: FileNames.partTitle(file.name), audio: audio.reference,
                                              length: audio.frames))
                case .failure(let error):
                    problem(file.shown, error.reasonText)
                }
            }
            if !manifestIssues.isEmpty { return refuse(manifestIssues, title: routine.title) }
        }
        if routine.parts.isEmpty {
            problem(relative, "routine \"\(routine.title)\" skipped: no playable parts")
            return RoutineBuild(routine: nil, problems: problems)
        }
        return RoutineBuild(routine: routine, problems: problems)
    }

    private static func count(_ n: Int) -> String { n == 1 ? "1 problem" : "\(n) problems" }

    /// Issues by line (those without one last), keeping the order found within a line.
    private static func inLineOrder(_ issues: [Manifest.Issue]) -> [Manifest.Issue] {
        issues.enumerated().sorted { a, b in
            let x = a.element.line ?? Int.max, y = b.element.line ?? Int.max
            return x != y ? x < y : a.offset < b.offset
        }.map(\.element)
    }

    /// Formats the stick cannot play are refused by name without opening them.
    private func decode(_ file: StickAudioFile) throws -> Result<DecodedAudio, AudioDecodeError> {
        if let unsupported = AudioFormats.unsupportedExtensions[AudioFormats.fileExtension(file.name)] {
            return .failure(AudioDecodeError(path: file.real, reason: .unsupported(unsupported)))
        }
        return try decoder.decode(file)
    }

    /// The parts a manifest describes, the issues that make it unusable, and the audio files
    /// that failed to decode (their parts are left out).
    private func manifestParts(_ manifest: Manifest, folder: String) throws
        -> ([Part], [Manifest.Issue], [(shown: String, reason: String)]) {
        var issues: [Manifest.Issue] = []
        var resolved: [(spec: Manifest.PartSpec, real: String)] = []
        for spec in manifest.parts {
            if let refusal = StickPaths.manifestPathProblem(spec.file) {
                issues.append(.init(line: spec.fileLine, message: "part \(spec.index + 1): \(refusal)"))
                continue
            }
            guard let real = StickPaths.resolve(folder + "/" + spec.file),
                  StickPaths.kind(real) == .file else {
                issues.append(.init(line: spec.fileLine, message: "part \(spec.index + 1): file \"\(spec.file.clipped)\" not found"))
                continue
            }
            guard StickPaths.isInside(real, root: folder) else {
                issues.append(.init(line: spec.fileLine,
                                    message: "part \(spec.index + 1): \"\(spec.file.clipped)\" links outside the routine folder; refused"))
                continue
            }
            resolved.append((spec, real))
        }
        var parts: [Part] = []
        var failedAudio: [(shown: String, reason: String)] = []
        let rate = decoder.outputRate
        func time(_ frames: Int64) -> String { ManifestTime.format(frames, rate: rate) }
        for (spec, real) in resolved {
            let name = "part \(spec.index + 1)"
            let shown = StickPaths.relative(real, to: root)
            let file = StickAudioFile(name: spec.file, real: real, shown: shown)
            let audio: DecodedAudio
            switch try decode(file) {
            case .success(let decoded): audio = decoded
            case .failure(let error):
                failedAudio.append((shown, "\(error.reasonText) (\(name) left out)"))
                continue
            }
            if let to = spec.to, to > audio.frames {
                issues.append(.init(line: spec.toLine, message:
                    "\(name): 'to' \(time(to)) is past the end of \"\(spec.file)\" (\(time(audio.frames)))"))
                continue
            }
            // A cut already refused by the manifest (unreadable or reversed) has no length to check against.
            guard spec.cutKnown else { continue }
            let from = spec.from ?? 0
            let to = spec.to ?? audio.frames
            if from >= to {
                issues.append(.init(line: spec.fromLine, message:
                    "\(name): 'from' \(time(from)) is not before the end \(time(to))"))
                continue
            }
            let length = to - from
            var partIssue = false
            if let loop = spec.loop, loop.b > length {
                issues.append(.init(line: spec.loopLine, message:
                    "\(name): loop \(time(loop.a))–\(time(loop.b)) lies outside the part (length \(time(length)); loop times are part-relative)"))
                partIssue = true
            }
            for (m, move) in spec.moves.enumerated() {
                if let cue = move.cue, cue >= length {
                    issues.append(.init(line: spec.cueLines.indices.contains(m) ? spec.cueLines[m] : spec.line, message:
                        "\(name): move \"\(move.name)\" cue \(time(cue)) is past the part end (\(time(length)); cue times are part-relative)"))
                    partIssue = true
                }
            }
            if partIssue { continue }
            let cut = spec.from == nil && spec.to == nil ? nil : from..<to
            parts.append(Part(title: spec.title ?? FileNames.partTitle(spec.file.split(separator: "/").last.map(String.init) ?? spec.file),
                              audio: audio.reference, range: cut, length: length,
                              moves: spec.moves, savedLoop: spec.loop, grid: spec.grid, speed: spec.speed ?? 100,
                              stickLoop: spec.loop, short: spec.short))
        }
        return (parts, issues, failedAudio)
    }
}
