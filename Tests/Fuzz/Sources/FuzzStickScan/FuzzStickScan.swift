// libFuzzer target: a folder tree made from the bytes (TreeRecipe), scanned as a stick
// with small bounds (so that every bound is reachable), and each routine found built
// against its manifest. Audio is not decoded here (FuzzSndFile, FuzzFFmpeg do that): a
// file's length in frames is taken from its size.
import FuzzSupport
#if canImport(Glibc)
import Glibc
#endif
import SegmanceCore
@testable import AudioDecoding
@testable import SegmanceStick

/// Every audio file "decodes" to 100 frames per byte; an empty one has no audio.
final class SizeDecoder: StickAudioDecoding {
    let outputRate = 48_000

    func decode(_ file: StickAudioFile) throws -> Result<DecodedAudio, AudioDecodeError> {
        let size = StickPaths.size(file.real)
        guard size > 0 else { return .failure(AudioDecodeError(path: file.real, reason: .noAudio)) }
        return .success(DecodedAudio(reference: AudioReference(StickPaths.relative(file.real, to: StickScanRun.root)),
                                     frames: size * 100))
    }
}

enum StickScanRun {
    nonisolated(unsafe) static var root = ""

    static let limits: [StickLimits] = [
        StickLimits(),
        StickLimits(maxDepth: 2, maxEntriesPerFolder: 6, maxEntries: 24, maxRoutines: 3, maxAudioFiles: 2, maxNameLength: 12),
        StickLimits(maxDepth: 0, maxEntriesPerFolder: 3, maxEntries: 5, maxRoutines: 1, maxAudioFiles: 1, maxNameLength: 4),
    ]
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzStickScan(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    FuzzFolder.empty()
    defer { FuzzFolder.empty() }
    let stick = FuzzFolder.path + "/stick"
    precondition(mkdir(stick, 0o755) == 0, "mkdir \(stick)")
    let limits = StickScanRun.limits[Int(bytes.first ?? 0) % StickScanRun.limits.count]
    var recipe = TreeRecipe(bytes.dropFirst())
    recipe.build(in: Array(stick.utf8))

    let scan = StickScanner(limits: limits).scan(stick)
    guard let root = scan.root else {
        preconditionFailure("the stick folder itself was not read: \(scan.problems)")
    }
    StickScanRun.root = root
    precondition(scan.routines.count <= limits.maxRoutines, "\(scan.routines.count) routines")
    for source in scan.routines {
        // Nothing outside the stick is ever taken, whatever its links say.
        precondition(source.folder == root || source.folder.hasPrefix(root + "/"), "routine folder \(source.folder)")
        precondition(source.audio.count <= limits.maxAudioFiles, "\(source.audio.count) audio files")
        for file in source.audio + (source.manifest.map { [StickAudioFile(name: "", real: $0, shown: "")] } ?? []) {
            precondition(file.real.hasPrefix(root + "/"), "\(file.real) is outside the stick \(root)")
        }
        let build = try! RoutineBuilder(root: root, decoder: SizeDecoder()).build(source)
        // A routine that is refused says why.
        precondition(build.routine != nil || !build.problems.isEmpty, "\(source.relative) refused without a problem")
    }
    for problem in scan.problems {
        precondition(!problem.path.hasPrefix("/"), "a problem names an absolute path: \(problem.path)")
    }
    return 0
}
