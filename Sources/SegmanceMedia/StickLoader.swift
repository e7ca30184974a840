import Foundation
import SegmanceCore

/// Reads a folder laid out like a USB stick into routines with decoded audio.
///
/// - One folder (the root and folders up to `maxDepth` levels below it) with audio files
///   or a `routine.toml` is one routine, titled with the folder's name.
/// - Without a manifest, or with one that has no `[[part]]`, each audio file is a part,
///   in natural file-name order, titled with the name minus track number and extension.
/// - With `[[part]]` entries, exactly those parts exist, in that order; one file may be
///   cut into several parts (decoded once, shared through one `AudioReference`).
/// - In a manifest, `from`/`to` are positions in the file; a part's `loop` and its moves'
///   `at` cues are part-relative (0 is the part's `from`).
/// - A bad audio file fails its part, a bad manifest fails its routine, a folder left with
///   no parts is dropped; every failure is a `StickProblem` and the rest still loads.
/// - Mac/Windows debris and hidden files are skipped silently; links that resolve outside
///   the root and manifest paths that leave their routine folder are refused.
public struct StickLoader: Sendable {
    /// The output sample rate audio is converted to.
    public var outputRate: Int
    /// How many folder levels below the root are searched.
    public var maxDepth: Int

    public init(outputRate: Int = 48000, maxDepth: Int = 4) {
        self.outputRate = outputRate
        self.maxDepth = maxDepth
    }

    /// Loads everything under `root`. Never throws: what fails is listed in `problems`.
    public func load(_ root: String) -> StickContent {
        guard let realRoot = StickPaths.resolve(root), StickPaths.kind(realRoot) == .directory else {
            return StickContent(problems: [StickProblem(path: ".", reason: "the stick folder \(root) cannot be read")])
        }
        let session = StickLoadSession(root: realRoot, decoder: AudioDecoder(outputRate: outputRate),
                                       maxDepth: maxDepth)
        let rootName = URL(fileURLWithPath: root).standardizedFileURL.lastPathComponent
        session.scan(folder: realRoot, relative: "", title: rootName, depth: 0)
        return session.content()
    }
}

/// The mutable state of one `load` call.
final class StickLoadSession {
    let root: String
    let decoder: AudioDecoder
    let maxDepth: Int
    private var routines: [Routine] = []
    private var problems: [StickProblem] = []
    /// Decoded (or failed) files by their path relative to the root.
    private var decoded: [String: Result<PCMBuffer, AudioDecodeError>] = [:]
    private var visited: Set<String> = []

    init(root: String, decoder: AudioDecoder, maxDepth: Int) {
        self.root = root
        self.decoder = decoder
        self.maxDepth = maxDepth
    }

    func content() -> StickContent {
        var media: [AudioReference: PCMBuffer] = [:]
        for part in routines.flatMap(\.parts) {
            if case .success(let buffer) = decoded[part.audio.id] { media[part.audio] = buffer }
        }
        return StickContent(routines: routines, media: media, problems: problems)
    }

    private func problem(_ path: String, _ reason: String, line: Int? = nil) {
        let shown = path.isEmpty ? "." : path
        problems.append(StickProblem(path: shown, reason: line.map { "line \($0): \(reason)" } ?? reason, line: line))
    }

    /// An audio file found in a folder: where it really is and how to name it.
    private struct AudioFile {
        var name: String
        /// Canonical absolute path.
        var real: String
        /// The path as found, relative to the root (for messages).
        var shown: String
    }

    func scan(folder: String, relative: String, title: String, depth: Int) {
        guard visited.insert(folder).inserted else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            problem(relative, "cannot list the folder: \(error.localizedDescription)")
            return
        }
        var audio: [AudioFile] = []
        var manifest: String?
        var subfolders: [(path: String, relative: String, name: String)] = []
        for name in names.sorted(by: FileNames.naturalLess) where !FileNames.isDebris(name) {
            let path = folder + "/" + name
            let shown = StickPaths.join(relative, name)
            var real = path
            if StickPaths.isLink(path) {
                guard let target = StickPaths.resolve(path) else {
                    problem(shown, "broken link (its target does not exist)")
                    continue
                }
                guard StickPaths.isInside(target, root: root) else {
                    problem(shown, "link leads outside the stick (to \(target)); refused")
                    continue
                }
                real = target
            }
            switch StickPaths.kind(real) {
            case .directory:
                subfolders.append((real, shown, name))
            case .file:
                let ext = AudioFormats.fileExtension(name)
                if name.lowercased() == "routine.toml" {
                    manifest = real
                } else if AudioFormats.playableExtensions.contains(ext)
                            || AudioFormats.unsupportedExtensions[ext] != nil {
                    audio.append(AudioFile(name: name, real: real, shown: shown))
                }
            case .other:
                continue
            }
        }
        if !audio.isEmpty || manifest != nil {
            loadRoutine(folder: folder, relative: relative, title: title, audio: audio, manifest: manifest)
        }
        guard depth < maxDepth else { return }
        for sub in subfolders {
            scan(folder: sub.path, relative: sub.relative, title: sub.name, depth: depth + 1)
        }
    }

    /// Decodes (once) the file at canonical `real`; problems are reported by the caller.
    private func decode(_ real: String, name: String) -> (AudioReference, Result<PCMBuffer, AudioDecodeError>) {
        let id = StickPaths.relative(real, to: root)
        let reference = AudioReference(id)
        if let known = decoded[id] { return (reference, known) }
        let result: Result<PCMBuffer, AudioDecodeError>
        if let unsupported = AudioFormats.unsupportedExtensions[AudioFormats.fileExtension(name)] {
            result = .failure(AudioDecodeError(path: real, reason: .unsupported(unsupported)))
        } else {
            result = Result { () throws(AudioDecodeError) in try decoder.decode(real) }
        }
        decoded[id] = result
        return (reference, result)
    }

    private func loadRoutine(folder: String, relative: String, title: String,
                             audio: [AudioFile], manifest manifestPath: String?) {
        var routine = Routine(title: title, parts: [])
        var manifest: Manifest?
        let manifestShown = StickPaths.join(relative, "routine.toml")
        if let manifestPath {
            guard let text = try? String(contentsOfFile: manifestPath, encoding: .utf8) else {
                problem(manifestShown, "cannot read routine.toml (is it UTF-8 text?)")
                problem(relative, "routine \"\(title)\" skipped: its routine.toml is unusable")
                return
            }
            switch Manifest.parse(text, rate: decoder.outputRate) {
            case .failure(let failure):
                for issue in failure.issues { problem(manifestShown, issue.message, line: issue.line) }
                problem(relative, "routine \"\(title)\" skipped: its routine.toml has \(count(failure.issues.count))")
                return
            case .success(let parsed):
                manifest = parsed
                routine.title = parsed.title ?? title
                routine.subtitle = parsed.subtitle ?? ""
                routine.countdown = parsed.countdown
            }
        }

        if let manifest, !manifest.parts.isEmpty {
            guard let parts = manifestParts(manifest, folder: folder, manifestShown: manifestShown) else {
                problem(relative, "routine \"\(routine.title)\" skipped: its routine.toml has problems")
                return
            }
            routine.parts = parts
        } else {
            for file in audio {
                let (reference, result) = decode(file.real, name: file.name)
                switch result {
                case .success(let buffer):
                    routine.parts.append(Part(title: FileNames.partTitle(file.name), audio: reference,
                                              length: buffer.frames))
                case .failure(let error):
                    problem(file.shown, error.reasonText)
                }
            }
        }
        if routine.parts.isEmpty {
            problem(relative, "routine \"\(routine.title)\" skipped: no playable parts")
            return
        }
        routines.append(routine)
    }

    private func count(_ n: Int) -> String { n == 1 ? "1 problem" : "\(n) problems" }

    /// The parts a manifest describes; nil when the manifest is wrong (problems reported).
    /// Parts whose audio fails to decode are left out (their problems reported too).
    private func manifestParts(_ manifest: Manifest, folder: String, manifestShown: String) -> [Part]? {
        var issues: [Manifest.Issue] = []
        var resolved: [(spec: Manifest.PartSpec, real: String)] = []
        for spec in manifest.parts {
            if let refusal = StickPaths.manifestPathProblem(spec.file) {
                issues.append(.init(line: spec.fileLine, message: "part \(spec.index + 1): \(refusal)"))
                continue
            }
            guard let real = StickPaths.resolve(folder + "/" + spec.file),
                  StickPaths.kind(real) == .file else {
                issues.append(.init(line: spec.fileLine, message: "part \(spec.index + 1): file \"\(spec.file)\" not found"))
                continue
            }
            guard StickPaths.isInside(real, root: folder) else {
                issues.append(.init(line: spec.fileLine,
                                    message: "part \(spec.index + 1): \"\(spec.file)\" links outside the routine folder; refused"))
                continue
            }
            resolved.append((spec, real))
        }
        var parts: [Part] = []
        var failedAudio: [(shown: String, reason: String)] = []
        let rate = decoder.outputRate
        func time(_ frames: Int64) -> String { ManifestTime.format(frames, rate: rate) }
        if issues.isEmpty {
            for (spec, real) in resolved {
                let name = "part \(spec.index + 1)"
                let (reference, result) = decode(real, name: spec.file)
                guard case .success(let buffer) = result else {
                    if case .failure(let error) = result {
                        failedAudio.append((reference.id, "\(error.reasonText) (\(name) left out)"))
                    }
                    continue
                }
                let from = spec.from ?? 0
                let to = spec.to ?? buffer.frames
                if to > buffer.frames {
                    issues.append(.init(line: spec.toLine, message:
                        "\(name): 'to' \(time(to)) is past the end of \"\(spec.file)\" (\(time(buffer.frames)))"))
                    continue
                }
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
                        issues.append(.init(line: spec.cueLines[m], message:
                            "\(name): move \"\(move.name)\" cue \(time(cue)) is past the part end (\(time(length)); cue times are part-relative)"))
                        partIssue = true
                    }
                }
                if partIssue { continue }
                let cut = spec.from == nil && spec.to == nil ? nil : from..<to
                parts.append(Part(title: spec.title ?? FileNames.partTitle(spec.file.split(separator: "/").last.map(String.init) ?? spec.file),
                                  audio: reference, range: cut, length: length,
                                  moves: spec.moves, savedLoop: spec.loop))
            }
        }
        for failed in failedAudio { problem(failed.shown, failed.reason) }
        if !issues.isEmpty {
            for issue in issues { problem(manifestShown, issue.message, line: issue.line) }
            return nil
        }
        return parts
    }
}
