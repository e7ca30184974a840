import BeatTracking
import LinuxSystem
import SegmanceCore
import SegmanceLibrary
import SegmanceStick
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// What an import reports, in order, as it goes.
public enum ImportEvent: Equatable, Sendable {
    /// The stick was scanned: this many routine folders will be imported.
    case started(routines: Int)
    case progress(ImportProgress)
    /// Something on the stick is wrong (its file and the reason); the rest goes on.
    case problem(StickProblem)
    /// Something read with a guess worth saying (a file name matched without regard to case).
    case note(StickProblem)
    /// A routine was committed (or found identical: `.unchanged`, nothing written).
    case routine(title: String, outcome: ImportOutcome)
    /// A routine was not imported; the library keeps what it had of it.
    case routineFailed(title: String, reason: String)
    case finished(ImportSummary)
}

/// Imports a stick into the library, routine by routine, all-or-nothing per routine:
/// every part's audio is decoded and converted (libsndfile, soxr) into temporary files of
/// the media store, fsynced and renamed to their content hash, the media directory is
/// fsynced, and only then are the routine's rows committed in one transaction. A stick
/// pulled out, a full disk or a cancel stops the import: the routine under way is
/// abandoned whole (its new media files deleted), the ones before it stay.
///
/// `run` blocks; the daemon runs it in a child process (`ProcessImportRunner`, `ImportWorker`),
/// the twin in line (`InlineImportRunner`). `cancel()` may be called from any thread.
public final class Importer: Sendable {
    public let library: Library
    public let maxDepth: Int
    /// Where the kernel lists block devices by number (`/sys/dev/block/MAJOR:MINOR`): a
    /// stick whose device is no longer listed was pulled out, even while its dead mount
    /// still answers `stat`.
    public let blockDevices: String
    /// How long a read error on the stick waits for the kernel to remove a stick being
    /// pulled out, before it is taken for a damaged file (nanoseconds).
    public let vanishGrace: Int64
    /// Told the file (relative to the stick) before its audio is looked at, so that a
    /// process running the import can say which file it was on if it dies.
    public let willDecode: (@Sendable (String) -> Void)?
    private let cancelled = Atomic<Bool>(false)

    public init(library: Library, maxDepth: Int = 4, blockDevices: String = "/sys/dev/block",
                vanishGrace: Int64 = 2_000_000_000, willDecode: (@Sendable (String) -> Void)? = nil) {
        self.library = library
        self.willDecode = willDecode
        self.maxDepth = maxDepth
        self.blockDevices = blockDevices
        self.vanishGrace = vanishGrace
    }

    /// Stops the import at the next chunk of audio (the stick is gone).
    public func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Why an import stops before its end.
    enum Stop: Error {
        case cancelled
        case stickGone
        case diskFull(String)
        case library(String)

        var shortReason: String {
            switch self {
            case .cancelled, .stickGone: "stick removed"
            case .diskFull: "library disk full"
            case .library: "library error"
            }
        }

        var longReason: String {
            switch self {
            case .cancelled: "the import was cancelled: the stick went away"
            case .stickGone: "the stick went away during the import"
            case .diskFull(let detail): "the library's disk is full (\(detail))"
            case .library(let detail): detail
            }
        }
    }

    /// Imports the stick at `path`, whose volume label is `label` (it names the routine of
    /// loose songs at the root); `report` gets every event, the last one `.finished`.
    @discardableResult
    public func run(_ path: String, label: String? = nil, report: @escaping (ImportEvent) -> Void) -> ImportSummary {
        cancelled.store(false, ordering: .relaxed)
        var summary = ImportSummary()
        func finish() -> ImportSummary {
            report(.finished(summary))
            return summary
        }
        let lock: LibraryLock?
        do {
            lock = try library.lockForWriting(wait: true)
        } catch {
            summary.stopped = "library error"
            report(.problem(StickProblem(path: ".", reason: "\(error)")))
            return finish()
        }
        defer { withExtendedLifetime(lock) {} }

        let scan = StickScanner(maxDepth: maxDepth).scan(path, label: label)
        guard let root = scan.root else {
            for problem in scan.problems { report(.problem(problem)) }
            summary.stopped = "stick unreadable"
            return finish()
        }
        // Counted as the offer counts: routines whose manifest cannot be read are only named.
        let count = scan.routines.filter(RoutineBuilder.promisesParts).count
        report(.started(routines: count))
        var device = stat()
        stat(root, &device)
        let stick = StickPresence(root: root, device: device.st_dev, blockDevices: blockDevices, grace: vanishGrace)
        var index = 0
        var imported: [String: String] = [:]
        for entry in scan.entries {
            let source: RoutineSource
            switch entry {
            case .problem(let problem):
                report(.problem(problem))
                continue
            case .routine(let found):
                source = found
            }
            if RoutineBuilder.promisesParts(source) { index += 1 }
            let progress = ProgressReporter(routine: max(index, 1), count: max(count, index, 1), title: source.title,
                                            total: source.audioBytes, report: report)
            progress.report(0)
            let decoder = StoreDecoder(library: library, root: root, stick: stick, progress: progress,
                                       detector: BeatDetector(sampleRate: library.sampleRate),
                                       willDecode: willDecode) { [self] in
                if cancelled.load(ordering: .relaxed) { throw Stop.cancelled }
            }
            do {
                let built = try RoutineBuilder(root: root, decoder: decoder).build(source)
                for problem in built.problems { report(.problem(problem)) }
                for note in built.notes { report(.note(note)) }
                summary.leftOut += built.leftOut
                guard let routine = try built.routine.map({
                    try withDetectedBeats($0, decoder: decoder, report: report)
                }) else {
                    // Refused (its manifest is wrong): what it put in the store goes again.
                    decoder.abandon()
                    summary.failed += 1
                    report(.routineFailed(title: source.title, reason: "nothing to import"))
                    continue
                }
                let shown = source.relative.isEmpty ? "." : source.relative
                if let first = imported[routine.title] {
                    // Titles name routines in the library: a second one would replace the first.
                    decoder.abandon()
                    summary.failed += 1
                    let reason = "another routine on this stick (\(first)) has the title \"\(routine.title)\""
                    report(.problem(StickProblem(path: shown, reason: "routine skipped: \(reason)")))
                    report(.routineFailed(title: routine.title, reason: reason))
                    continue
                }
                imported[routine.title] = shown
                // Parts that failed because the stick went away must not commit a half routine.
                guard stick.isPresent(source.folder) else { throw Stop.stickGone }
                try decoder.makeDurable()
                let namedByStick = source.relative.isEmpty && !built.titledByManifest
                let (outcome, title) = try library.commit(routine, media: decoder.media(of: routine), sourcePath: shown,
                                                          namedByStick: namedByStick)
                progress.report(100)
                switch outcome {
                case .added: summary.added += 1
                case .addedBeside:
                    summary.added += 1
                    summary.renamed += 1
                case .replaced: summary.replaced += 1
                case .unchanged: summary.unchanged += 1
                }
                report(.routine(title: title, outcome: outcome))
            } catch {
                decoder.abandon()
                let stop = Self.stop(for: error)
                summary.failed += 1
                report(.routineFailed(title: source.title, reason: stop.longReason))
                report(.problem(StickProblem(path: source.relative.isEmpty ? "." : source.relative,
                                             reason: "routine \"\(source.title)\" not imported: \(stop.longReason)")))
                summary.stopped = stop.shortReason
                return finish()
            }
        }
        importClassSets(root, report: report)
        return finish()
    }

    /// The stick's class.toml, when it has one: its sets replace the ones an earlier stick gave.
    func importClassSets(_ root: String, report: (ImportEvent) -> Void) {
        guard let reading = ClassFile.read(root: root) else { return }
        for problem in reading.problems { report(.problem(problem)) }
        do {
            try library.replaceStickClassSets(reading.sets)
        } catch {
            report(.problem(StickProblem(path: ClassFile.name, reason: "class sets not kept: \(error)")))
        }
    }

    /// The routine with a beat grid detected in the audio of every part the manifest gave
    /// none (`BeatDetector`); a part with no steady beat keeps none. A part that is a whole
    /// file decoded now was analysed while it decoded; the others are analysed here, from
    /// the store.
    private func withDetectedBeats(_ routine: Routine, decoder: StoreDecoder,
                                   report: (ImportEvent) -> Void) throws -> Routine {
        var routine = routine
        let detector = decoder.detector
        for i in routine.parts.indices where routine.parts[i].grid == nil {
            if cancelled.load(ordering: .relaxed) { throw Stop.cancelled }
            let part = routine.parts[i]
            if let found = decoder.detection(for: part) {
                routine.parts[i].grid = found.grid
                continue
            }
            guard let frames = decoder.frames(of: part.audio.id) else { continue }
            let start = part.range?.lowerBound ?? 0
            do {
                let pcm = try library.store.map(part.audio.id, frames: frames)
                guard start + part.length <= pcm.frames else { continue }
                let found = try detector.detect(stereo: pcm.base + Int(start) * 2, frames: Int(part.length))
                routine.parts[i].grid = found.grid
            } catch {
                let reason = "part \"\(part.title)\": no beat detection: \(error)"
                report(.problem(StickProblem(path: routine.title, reason: reason)))
            }
        }
        return routine
    }

    private static func stop(for error: any Error) -> Stop {
        switch error {
        case let stop as Stop: return stop
        case let system as SystemError where system.isDiskFull: return .diskFull(system.description)
        case let library as LibraryError where library.isDiskFull: return .diskFull(library.reason)
        default: return .library("\(error)")
        }
    }
}

/// Whether the stick being imported is still there: its root mounted on the same device,
/// that device still known to the kernel, the path in place.
///
/// A stick pulled out while a file on it is open leaves a dead mount behind until it is
/// unmounted: `stat` of the root and of the open file still succeed from the kernel's
/// caches, only reads fail (EIO). The block device is gone from `/sys/dev/block` as soon
/// as the kernel has removed the disk, so that is what is asked.
struct StickPresence: Sendable {
    let root: String
    let device: dev_t
    /// `/sys/dev/block`, or a folder standing in for it in tests.
    let blockDevices: String
    /// How long `vanishes(afterReadError:)` waits for the kernel to remove the disk.
    let grace: Int64

    func isPresent(_ path: String) -> Bool {
        var info = stat()
        guard stat(root, &info) == 0, info.st_dev == device, deviceListed else { return false }
        return stat(path, &info) == 0
    }

    /// Whether the device is listed; file systems with no block device (tmpfs, 9p, FUSE:
    /// major 0) always are.
    var deviceListed: Bool {
        // glibc's gnu_dev_major / gnu_dev_minor.
        let dev = UInt64(device)
        let major = (dev & 0x0000_0000_000F_FF00) >> 8 | (dev & 0xFFFF_F000_0000_0000) >> 32
        let minor = dev & 0xFF | (dev & 0x0000_0FFF_FFF0_0000) >> 12
        return major == 0 || access("\(blockDevices)/\(major):\(minor)", F_OK) == 0
    }

    /// Reading `path` failed with an I/O error (`code` is errno): true when the stick is
    /// going away. The first failed read of a stick being pulled out comes a moment before
    /// the kernel removes the disk, so this watches for `grace` before it takes the error
    /// for a damaged file on a stick that stays.
    func vanishes(afterReadError code: Int32, on path: String) -> Bool {
        guard Self.isMediumError(code) else { return !isPresent(path) }
        let deadline = Self.now() + grace
        while true {
            if !isPresent(path) { return true }
            if Self.now() >= deadline { return false }
            sleepMonotonic(nanoseconds: 20_000_000)
        }
    }

    /// Errors of the medium rather than of the file's content.
    static func isMediumError(_ code: Int32) -> Bool {
        code == EIO || code == ENODEV || code == ENXIO || code == ENOMEDIUM || code == ESHUTDOWN
    }

    private static func now() -> Int64 { monotonicNanoseconds() }
}

/// Turns per-file decoding fractions into "routine i of n, percent", sent when the
/// percent changes.
final class ProgressReporter {
    let routine: Int
    let count: Int
    let title: String
    let total: Int64
    private let send: (ImportEvent) -> Void
    private var last = -1
    private var done: Int64 = 0

    init(routine: Int, count: Int, title: String, total: Int64, report: @escaping (ImportEvent) -> Void) {
        self.routine = routine
        self.count = count
        self.title = title
        self.total = total
        self.send = report
    }

    func report(_ percent: Int) {
        guard percent != last else { return }
        last = percent
        send(.progress(ImportProgress(routine: routine, count: count, title: title, percent: percent)))
    }

    /// A file of `bytes` bytes is `fraction` decoded.
    func file(bytes: Int64, fraction: Double) {
        guard total > 0 else { return }
        let percent = Int((Double(done) + Double(bytes) * fraction) * 100 / Double(max(total, done + bytes)))
        report(min(99, percent))
    }

    func fileDone(bytes: Int64) { done += bytes }
}
