import ALSA
import Foundation
import SegmanceAudio
#if canImport(Glibc)
import Glibc
#endif

/// What each paced-device test sets up: the paced device and a scratch file of what it was
/// handed (`tapPath`), and a counting part (`XrunTests.countingPart`). `.jack`: a jackd of its
/// own behind a `type file` tap (`EngineTestEnvironment.jackTap`); `.paced`: the paced test
/// PCM (`PacedDevice`), whose capture is what it played and whose `truthPath` says when.
/// `close()` stops the server and lets go of the rest; call it in a `defer`.
final class PacedRun {
    enum Device: Equatable {
        case jack
        /// `continuous`: the paced device's pointer moves frame by frame, not a period at a time.
        case paced(continuous: Bool = false)
    }
    let device: Device
    let jack: JackServer?
    let tapPath: String
    let truthPath: String
    let frames: Int
    let pcm: UnsafeMutablePointer<Int16>
    /// The whole counting part.
    var part: PCMSlice { PCMSlice(base: pcm, frames: Int64(frames)) }

    init(_ name: String, seconds: Int, device: Device = .jack) throws {
        self.device = device
        jack = device == .jack ? try JackServer() : nil
        tapPath = EngineTestEnvironment.scratchFile(name)
        truthPath = tapPath + ".truth"
        frames = seconds * 48_000
        pcm = XrunTests.countingPart(frames: frames)
    }

    /// The PCM for the engine: the tap over jack, or the paced device.
    func output() throws -> PCMDevice {
        switch device {
        case .jack: try EngineTestEnvironment.jackTap(tapPath)
        case .paced(let continuous): try PacedDevice.open(capture: tapPath, truth: truthPath, continuous: continuous)
        }
    }

    /// The paced device's account (`.paced` only), once the engine has closed it.
    func truth() throws -> PacedTruth { try PacedTruth(path: truthPath) }

    func close() {
        pcm.deallocate()
        unlink(tapPath)
        unlink(truthPath)
        jack?.stop()
    }
}
