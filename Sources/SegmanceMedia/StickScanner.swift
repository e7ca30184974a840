import Foundation

/// An audio file found on a stick.
public struct StickAudioFile: Equatable, Sendable {
    /// The file's name as found (or as the manifest wrote it).
    public var name: String
    /// Canonical absolute path (links resolved).
    public var real: String
    /// The path relative to the stick root, for messages.
    public var shown: String

    public init(name: String, real: String, shown: String) {
        self.name = name
        self.real = real
        self.shown = shown
    }
}

/// A folder that holds a routine (audio files or a `routine.toml`), before anything is decoded.
public struct RoutineSource: Equatable, Sendable {
    /// Canonical absolute path of the folder.
    public var folder: String
    /// The folder relative to the stick root ("" for the root itself).
    public var relative: String
    /// The folder's name: the routine's title unless the manifest sets one.
    public var title: String
    /// The audio files of the folder, in natural order.
    public var audio: [StickAudioFile]
    /// Canonical path of the folder's `routine.toml`, if any.
    public var manifest: String?
    /// Bytes of the folder's audio files (for progress).
    public var audioBytes: Int64
}

/// What a scan of a stick found: routine folders and problems, in the order met.
public struct StickScan: Sendable {
    public enum Entry: Sendable {
        case routine(RoutineSource)
        case problem(StickProblem)
    }

    /// The canonical root, nil when the folder cannot be read.
    public var root: String?
    public var entries: [Entry]

    public var routines: [RoutineSource] {
        entries.compactMap { if case .routine(let r) = $0 { r } else { nil } }
    }

    public var problems: [StickProblem] {
        entries.compactMap { if case .problem(let p) = $0 { p } else { nil } }
    }
}

/// Walks a folder laid out like a USB stick and lists its routine folders without
/// decoding anything (fast enough to say "3 routines" the moment a stick appears).
///
/// One folder (the root and folders up to `maxDepth` levels below it) with audio files or
/// a `routine.toml` is one routine. Mac/Windows debris and hidden files are skipped
/// silently; links that resolve outside the root are refused.
public struct StickScanner: Sendable {
    /// How many folder levels below the root are searched.
    public var maxDepth: Int

    public init(maxDepth: Int = 4) {
        self.maxDepth = maxDepth
    }

    public func scan(_ root: String) -> StickScan {
        guard let realRoot = StickPaths.resolve(root), StickPaths.kind(realRoot) == .directory else {
            return StickScan(root: nil, entries: [
                .problem(StickProblem(path: ".", reason: "the stick folder \(root) cannot be read")),
            ])
        }
        var walk = StickWalk(root: realRoot, maxDepth: maxDepth)
        let rootName = URL(fileURLWithPath: root).standardizedFileURL.lastPathComponent
        walk.scan(folder: realRoot, relative: "", title: rootName, depth: 0)
        return StickScan(root: realRoot, entries: walk.entries)
    }
}

/// The mutable state of one scan.
private struct StickWalk {
    let root: String
    let maxDepth: Int
    var entries: [StickScan.Entry] = []
    private var visited: Set<String> = []

    init(root: String, maxDepth: Int) {
        self.root = root
        self.maxDepth = maxDepth
    }

    private mutating func problem(_ path: String, _ reason: String) {
        entries.append(.problem(StickProblem(path: path.isEmpty ? "." : path, reason: reason)))
    }

    mutating func scan(folder: String, relative: String, title: String, depth: Int) {
        guard visited.insert(folder).inserted else { return }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: folder)
        } catch {
            problem(relative, "cannot list the folder: \(error.localizedDescription)")
            return
        }
        var audio: [StickAudioFile] = []
        var bytes: Int64 = 0
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
                    audio.append(StickAudioFile(name: name, real: real, shown: shown))
                    bytes += StickPaths.size(real)
                }
            case .other:
                continue
            }
        }
        if !audio.isEmpty || manifest != nil {
            entries.append(.routine(RoutineSource(folder: folder, relative: relative, title: title,
                                                  audio: audio, manifest: manifest, audioBytes: bytes)))
        }
        guard depth < maxDepth else { return }
        for sub in subfolders {
            scan(folder: sub.path, relative: sub.relative, title: sub.name, depth: depth + 1)
        }
    }
}
