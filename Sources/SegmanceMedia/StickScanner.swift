import LinuxSystem
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
    /// The folder's name (the stick's label for the root): the routine's title unless the
    /// manifest sets one.
    public var title: String
    /// The audio files of the folder, in natural order.
    public var audio: [StickAudioFile]
    /// Canonical path of the folder's `routine.toml`, if any.
    public var manifest: String?
    /// Bytes of the folder's audio files (for progress).
    public var audioBytes: Int64

    /// A playable audio file is in the folder.
    public var hasMusic: Bool {
        audio.contains { AudioFormats.playableExtensions.contains(AudioFormats.fileExtension($0.name)) }
    }
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
/// One folder (the root and folders up to `limits.maxDepth` levels below it) with audio
/// files or a `routine.toml` is one routine. Mac/Windows debris and hidden files are
/// skipped silently; links that resolve outside the root are refused. What is looked at
/// is bounded (`StickLimits`); a bound that is hit is a problem naming the folder and
/// the bound, and the rest of the stick is still scanned where the bound allows.
public struct StickScanner: Sendable {
    public var limits: StickLimits

    /// How many folder levels below the root are searched.
    public var maxDepth: Int {
        get { limits.maxDepth }
        set { limits.maxDepth = newValue }
    }

    public init(limits: StickLimits = StickLimits()) {
        self.limits = limits
    }

    public init(maxDepth: Int) {
        self.limits = StickLimits(maxDepth: maxDepth)
    }

    /// What a scan looks for, for a stick where it found nothing.
    public static var lookedFor: String {
        "audio files (" + AudioFormats.playableExtensions.sorted().joined(separator: ", ")
            + ") in the stick's folders, down to \(StickLimits().maxDepth) levels"
    }

    /// The title of a routine made of the loose songs at a stick's root when the stick has no label.
    public static let unlabelledTitle = "USB stick"

    /// The title of the routine of the loose songs at a stick's root: its volume label
    /// (what the mount helper read), "USB stick" without one; never the device's name.
    public static func rootTitle(label: String?) -> String {
        let trimmed = (label ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        return trimmed.isEmpty ? unlabelledTitle : trimmed
    }

    /// Scans the stick mounted at `root`, whose volume label is `label` (nil: none).
    public func scan(_ root: String, label: String? = nil) -> StickScan {
        guard let realRoot = StickPaths.resolve(root), StickPaths.kind(realRoot) == .directory else {
            return StickScan(root: nil, entries: [
                .problem(StickProblem(path: ".", reason: "the stick folder \(root) cannot be read")),
            ])
        }
        var walk = StickWalk(root: realRoot, limits: limits)
        walk.scan(folder: realRoot, relative: "", title: Self.rootTitle(label: label), depth: 0)
        return StickScan(root: realRoot, entries: walk.entries)
    }
}

/// The mutable state of one scan.
private struct StickWalk {
    let root: String
    let limits: StickLimits
    var entries: [StickScan.Entry] = []
    private var visited: Set<String> = []
    /// Names read so far, for `maxEntries`.
    private var seen = 0
    private var routines = 0
    /// Set when a stick-wide bound is hit: nothing more is read.
    private var stopped = false

    init(root: String, limits: StickLimits) {
        self.root = root
        self.limits = limits
    }

    private mutating func problem(_ path: String, _ reason: String) {
        entries.append(.problem(StickProblem(path: path.isEmpty ? "." : path, reason: reason)))
    }

    /// The names in `folder` (without "." and ".."), at most the per-folder and the
    /// remaining stick-wide bound; nil when it cannot be listed.
    private mutating func list(_ folder: String, relative: String) -> [String]? {
        var names: [String] = []
        var undecodable = 0
        do throws(SystemError) {
            try Directory(folder).forEachEntry { entry in
                guard let name = entry.name else {
                    undecodable += 1
                    return true
                }
                if seen >= limits.maxEntries {
                    problem(".", "the stick holds more than \(limits.maxEntries) files and folders; "
                            + "the rest is not searched")
                    stopped = true
                    return false
                }
                if names.count >= limits.maxEntriesPerFolder {
                    problem(relative, "the folder holds more than \(limits.maxEntriesPerFolder) files and folders; "
                            + "only \(limits.maxEntriesPerFolder) are looked at")
                    return false
                }
                seen += 1
                names.append(name)
                return true
            }
        } catch where error.function == "opendir" {
            problem(relative, "cannot list the folder: \(error.message)")
            return nil
        } catch {
            problem(relative, "cannot list the whole folder: \(error.message)")
        }
        if undecodable > 0 {
            problem(relative, "\(undecodable) name\(undecodable == 1 ? " is" : "s are") not UTF-8 and "
                    + "\(undecodable == 1 ? "was" : "were") skipped (is the stick mounted with utf8?)")
        }
        return names
    }

    mutating func scan(folder: String, relative: String, title: String, depth: Int) {
        guard !stopped, visited.insert(folder).inserted else { return }
        guard let names = list(folder, relative: relative) else { return }
        var audio: [StickAudioFile] = []
        var bytes: Int64 = 0
        var manifest: String?
        var subfolders: [(path: String, relative: String, name: String)] = []
        for name in names.sorted(by: FileNames.naturalLess) where !FileNames.isDebris(name) {
            let path = folder + "/" + name
            let shown = StickPaths.join(relative, name)
            if name.unicodeScalars.count > limits.maxNameLength {
                problem(StickPaths.join(relative, String(name.unicodeScalars.prefix(40)) + "…"),
                        "the name is longer than \(limits.maxNameLength) characters; skipped")
                continue
            }
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
                }
            case .other:
                continue
            }
        }
        if !audio.isEmpty || manifest != nil {
            guard routines < limits.maxRoutines else {
                problem(relative, "more than \(limits.maxRoutines) routine folders on the stick; "
                        + "this one and the rest are not searched")
                stopped = true
                return
            }
            routines += 1
            if audio.count > limits.maxAudioFiles {
                problem(relative, "the folder holds \(audio.count) audio files; a routine takes at most "
                        + "\(limits.maxAudioFiles): the first \(limits.maxAudioFiles) in name order are its parts")
                audio.removeSubrange(limits.maxAudioFiles...)
            }
            for file in audio { bytes += StickPaths.size(file.real) }
            entries.append(.routine(RoutineSource(folder: folder, relative: relative, title: title,
                                                  audio: audio, manifest: manifest, audioBytes: bytes)))
        }
        guard depth < limits.maxDepth else {
            if !subfolders.isEmpty {
                problem(relative, "\(subfolders.count) folder\(subfolders.count == 1 ? "" : "s") in it "
                        + "\(subfolders.count == 1 ? "is" : "are") not searched: routines are looked for at most "
                        + "\(limits.maxDepth) folder levels below the stick")
            }
            return
        }
        for sub in subfolders {
            scan(folder: sub.path, relative: sub.relative, title: sub.name, depth: depth + 1)
        }
    }
}
