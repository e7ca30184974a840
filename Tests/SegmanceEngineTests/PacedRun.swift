import Foundation
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// What each paced-device test sets up: a jackd of its own, a scratch file for the
/// `type file` tap in front of it (`EngineTestEnvironment.jackTap(run.tapPath)`) and a
/// counting part (`XrunTests.countingPart`). `close()` stops the server and lets go of
/// the rest; call it in a `defer`.
final class PacedRun {
    let jack: JackServer
    let tapPath: String
    let frames: Int
    let pcm: UnsafeMutablePointer<Int16>
    /// The whole counting part.
    var part: PCMSlice { PCMSlice(base: pcm, frames: Int64(frames)) }

    init(_ name: String, seconds: Int) throws {
        jack = try JackServer()
        tapPath = EngineTestEnvironment.scratchFile(name)
        frames = seconds * 48_000
        pcm = XrunTests.countingPart(frames: frames)
    }

    func close() {
        pcm.deallocate()
        unlink(tapPath)
        jack.stop()
    }
}
