import AudioDecoding
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
    /// The routine's title is its manifest's (not its folder's name or the stick's label).
    public var titledByManifest = false
    /// Parts and files of the folder left out of the routine (each named in `problems`).
    public var leftOut = 0
    /// What was read with a guess that is worth saying but is no problem (a file name
    /// matched without regard to case).
    public var notes: [StickProblem] = []
}

/// Turns one routine folder into a `Routine`: reads `routine.toml`, decodes the audio
/// through a `StickAudioDecoding`, checks cut points, loops and cues against the decoded
/// lengths. Nothing is left out unnamed: a bad part (a problem in its `[[part]]`, an audio
/// file that does not decode) is left out with each reason, and the good parts import; a
/// problem of the manifest as a whole (an unknown key, a bad countdown) is named and the
/// value ignored; with no good part at all, each song is a part. Only a manifest that
/// cannot be read at all (too big, not UTF-8, a TOML syntax error) fails its routine;
/// `promisesParts` keeps it out of the offer.
///
/// - Without a manifest, or with one that has no `[[part]]`, each audio file is a part,
///   in natural file-name order, titled with the name minus track number and extension.
/// - With `[[part]]` entries, exactly those parts exist, in that order; one file may be
///   cut into several parts (decoded once, shared through one `AudioReference`). Audio
///   files of the folder no part names are a problem ("not in routine.toml: …").
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

    /// Whether `source` will give a routine, as far as can be known without decoding (so
    /// that what a stick offers is what its import brings in): a manifest that can be read
    /// (else the routine is refused), and a playable audio file in the folder or named by
    /// a part without a problem in its text.
    public static func promisesParts(_ source: RoutineSource) -> Bool {
        var manifest: Manifest?
        var badParts: Set<Int> = []
        if let path = source.manifest {
            guard case .success(let bytes) = ManifestFile.read(path) else { return false }
            let reading = Manifest.parse(bytes, rate: 48_000)
            guard let parsed = reading.manifest else { return false }
            manifest = parsed
            badParts = Set(reading.issues.compactMap(\.part))
        }
        guard !source.hasMusic else { return true }
        return (manifest?.parts ?? []).contains { spec in
            !badParts.contains(spec.index) && StickPaths.manifestPathProblem(spec.file) == nil
                && AudioFormats.playableExtensions.contains(AudioFormats.fileExtension(spec.file))
                && StickPaths.resolve(source.folder + "/" + spec.file).map {
                    StickPaths.kind($0) == .file && StickPaths.isInside($0, root: source.folder)
                } == true
        }
    }

    /// Builds the routine of `source`. Throws only what the decoder throws to abort.
    public func build(_ source: RoutineSource) throws -> RoutineBuild {
        var result = RoutineBuild(routine: nil, problems: [])
        func problem(_ path: String, _ reason: String, line: Int? = nil) {
            let shown = path.isEmpty ? "." : path
            result.problems.append(StickProblem(path: shown, reason: line.map { "line \($0): \(reason)" } ?? reason,
                                                line: line))
        }
        let relative = source.relative
        var routine = Routine(title: source.title, parts: [])
        var manifest: Manifest?
        var manifestIssues: [Manifest.Issue] = []
        let manifestShown = StickPaths.join(relative, "routine.toml")
        func refuse(_ issues: [Manifest.Issue], title: String) -> RoutineBuild {
            for issue in issues { problem(manifestShown, issue.message, line: issue.line) }
            problem(relative, "routine \"\(title)\" skipped: its routine.toml has \(Self.count(issues.count))")
            return result
        }
        if let manifestPath = source.manifest {
            let bytes: [UInt8]
            switch ManifestFile.read(manifestPath) {
            case .failure(let refusal):
                problem(manifestShown, refusal.description)
                problem(relative, "routine \"\(source.title)\" skipped: its routine.toml is unusable")
                return result
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
            result.titledByManifest = parsed.title != nil
        }

        // Every part is checked, also when the manifest already has issues, so that the
        // performer sees every problem of the routine in one pass.
        var songsAreParts = true
        if let manifest, !manifest.parts.isEmpty {
            let checked = try manifestParts(manifest, folder: source.folder)
            result.notes += checked.notes.map { StickProblem(path: manifestShown, reason: "line \($0.line): \($0.text)",
                                                             line: $0.line) }
            for failed in checked.failedAudio { problem(failed.shown, failed.reason) }
            for issue in Self.inLineOrder(manifestIssues + checked.issues) {
                problem(manifestShown, issue.message, line: issue.line)
            }
            let failed = Set(checked.failedAudio.map(\.part))
            let withIssues = Set((manifestIssues + checked.issues).compactMap(\.part)).subtracting(failed)
            routine.parts = checked.parts.filter { !failed.contains($0.index) && !withIssues.contains($0.index) }
                .map(\.part)
            if routine.parts.isEmpty {
                problem(relative, "no part of its routine.toml can be used: each song is a part")
            } else {
                songsAreParts = false
                result.leftOut += failed.count + withIssues.count
                if !withIssues.isEmpty {
                    let names = withIssues.sorted().map { "part \($0 + 1)" }.joined(separator: ", ")
                    problem(relative, "routine \"\(routine.title)\" imported without \(names) of its routine.toml")
                }
                // Songs of the folder no part names are not silently left out.
                let unlisted = source.audio.filter { !checked.listed.contains($0.real) }
                if !unlisted.isEmpty {
                    result.leftOut += unlisted.count
                    problem(relative, "not in routine.toml: " + unlisted.map(\.name).joined(separator: ", "))
                }
            }
        }
        if songsAreParts {
            for file in source.audio {
                switch try decode(file) {
                case .success(let audio):
                    routine.parts.append(Part(title: FileNames.partTitle(file.name), audio: audio.reference,
                                              length: audio.frames))
                case .failure(let error):
                    result.leftOut += 1
                    problem(file.shown, error.reasonText)
                }
            }
            if manifest?.parts.isEmpty ?? false {
                for issue in manifestIssues { problem(manifestShown, issue.message, line: issue.line) }
            }
        }
        if routine.parts.isEmpty {
            problem(relative, "routine \"\(routine.title)\" skipped: no playable parts")
            result.leftOut = 0
            return result
        }
        result.routine = routine
        return result
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

    /// What checking a manifest's parts against their audio found.
    private struct CheckedParts {
        /// The parts that could be made, with their `[[part]]` index.
        var parts: [(index: Int, part: Part)] = []
        /// Issues found against the audio.
        var issues: [Manifest.Issue] = []
        /// Audio files that failed to decode, and the part left out for each.
        var failedAudio: [(shown: String, reason: String, part: Int)] = []
        /// Canonical paths of the files the parts name.
        var listed: Set<String> = []
        /// File names matched without regard to case, with the line of their `file`.
        var notes: [(line: Int, text: String)] = []
    }

    /// The parts a manifest describes, the issues that leave parts out, and the audio files
    /// that failed to decode (their parts are left out).
    private func manifestParts(_ manifest: Manifest, folder: String) throws -> CheckedParts {
        var checked = CheckedParts()
        var issues: [Manifest.Issue] = []
        var resolved: [(spec: Manifest.PartSpec, real: String)] = []
        for spec in manifest.parts {
            if let refusal = StickPaths.manifestPathProblem(spec.file) {
                issues.append(.init(line: spec.fileLine, message: "part \(spec.index + 1): \(refusal)",
                                    part: spec.index))
                continue
            }
            var found = StickPaths.resolve(folder + "/" + spec.file)
            if found == nil, let matched = StickPaths.matchIgnoringCase(spec.file, in: folder) {
                found = StickPaths.resolve(folder + "/" + matched)
                checked.notes.append((spec.fileLine ?? spec.line ?? 0,
                                      "part \(spec.index + 1): \"\(spec.file.clipped)\" read as \"\(matched.clipped)\" "
                                      + "(the name differs in capitals only)"))
            }
            guard let real = found, StickPaths.kind(real) == .file else {
                issues.append(.init(line: spec.fileLine,
                                    message: "part \(spec.index + 1): file \"\(spec.file.clipped)\" not found",
                                    part: spec.index))
                continue
            }
            guard StickPaths.isInside(real, root: folder) else {
                issues.append(.init(line: spec.fileLine,
                                    message: "part \(spec.index + 1): \"\(spec.file.clipped)\" links outside the "
                                        + "routine folder; refused",
                                    part: spec.index))
                continue
            }
            checked.listed.insert(real)
            resolved.append((spec, real))
        }
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
                checked.failedAudio.append((shown, "\(error.reasonText) (\(name) left out)", spec.index))
                continue
            }
            if let to = spec.to, to > audio.frames {
                issues.append(.init(line: spec.toLine, message:
                    "\(name): 'to' \(time(to)) is past the end of \"\(spec.file)\" (\(time(audio.frames)))",
                    part: spec.index))
                continue
            }
            // A cut already refused by the manifest (unreadable or reversed) has no length to check against.
            guard spec.cutKnown else { continue }
            let from = spec.from ?? 0
            let to = spec.to ?? audio.frames
            if from >= to {
                issues.append(.init(line: spec.fromLine, message:
                    "\(name): 'from' \(time(from)) is not before the end \(time(to))", part: spec.index))
                continue
            }
            let length = to - from
            var partIssue = false
            if let loop = spec.loop, loop.b > length {
                issues.append(.init(line: spec.loopLine, message:
                    "\(name): loop \(time(loop.a))–\(time(loop.b)) lies outside the part "
                    + "(length \(time(length)); loop times are part-relative)",
                    part: spec.index))
                partIssue = true
            }
            for (n, named) in spec.loops.enumerated() where named.loop.b > length {
                issues.append(.init(line: spec.loopsLines.indices.contains(n) ? spec.loopsLines[n] : spec.line, message:
                    "\(name): loop \"\(named.name.clipped)\" \(time(named.loop.a))–\(time(named.loop.b)) "
                    + "lies outside the part (length \(time(length)); loop times are part-relative)", part: spec.index))
                partIssue = true
            }
            for (m, move) in spec.moves.enumerated() {
                if let cue = move.cue, cue >= length {
                    issues.append(.init(line: spec.cueLines.indices.contains(m) ? spec.cueLines[m] : spec.line, message:
                        "\(name): move \"\(move.name)\" cue \(time(cue)) is past the part end "
                        + "(\(time(length)); cue times are part-relative)",
                        part: spec.index))
                    partIssue = true
                }
            }
            if let fade = spec.fadeOut, fade > length {
                issues.append(.init(line: spec.fadeOutLine ?? spec.line, message:
                    "\(name): 'fade_out' \(time(fade)) is longer than the part (\(time(length)))", part: spec.index))
                partIssue = true
            }
            if partIssue { continue }
            let cut = spec.from == nil && spec.to == nil ? nil : from..<to
            let fileName = spec.file.split(separator: "/").last.map(String.init) ?? spec.file
            checked.parts.append((spec.index, Part(title: spec.title ?? FileNames.partTitle(fileName),
                              audio: audio.reference, range: cut, length: length,
                              moves: spec.moves, savedLoop: spec.loop, grid: spec.grid, speed: spec.speed ?? 100,
                              stickLoop: spec.loop, short: spec.short, loops: spec.loops,
                              leadIn: spec.leadIn, ramp: spec.ramp, fadeOut: spec.fadeOut ?? 0)))
        }
        checked.issues = issues
        return checked
    }
}
