import ALSA
import LinuxSystem

/// A problem configuring or starting the engine: what was refused, with the underlying
/// error where there is one. `description` is a message for a person.
public enum EngineError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The profile's `format` is not a sample format the engine writes.
    case unknownFormat(String)
    /// A value outside what the engine works with.
    case outOfRange(Setting, value: Int)
    /// The rewind guard is less than a render chunk or more than a quarter of the buffer.
    case rewindGuard(frames: Int, chunk: Int, quarterBuffer: Int)
    /// The audio device could not be opened or configured.
    case device(ALSAError)
    /// A system call failed (an eventfd could not be made).
    case system(SystemError)
    /// The render thread could not be started.
    case threadNotStarted(SystemError)
    /// `start()` was called twice.
    case alreadyStarted

    /// A setting of the profile's `[audio]` table, as its key reads.
    public enum Setting: Sendable {
        case rate, periodFrames, periods, renderChunk, realtimePriority

        /// The values the engine works with.
        public var range: ClosedRange<Int> {
            switch self {
            case .rate: 8_000...384_000
            case .periodFrames: 16...16_384
            case .periods: 2...64
            case .renderChunk: 16...4_096
            case .realtimePriority: 1...99
            }
        }

        var name: String {
            switch self {
            case .rate: "rate"
            case .periodFrames: "period_frames"
            case .periods: "periods"
            case .renderChunk: "render chunk"
            case .realtimePriority: "realtime priority"
            }
        }

        var unit: String {
            switch self {
            case .rate: " Hz"
            case .renderChunk: " frames"
            default: ""
            }
        }

        /// Throws `outOfRange` for a value outside `range`.
        func check(_ value: Int) throws(EngineError) {
            if !range.contains(value) { throw .outOfRange(self, value: value) }
        }
    }

    public var description: String {
        switch self {
        case .unknownFormat(let name):
            "audio format '\(name)' is not one of " + PCMSampleFormat.allCases.map(\.alsaName).joined(separator: ", ")
        case .outOfRange(let setting, let value):
            "audio \(setting.name) \(value)\(setting.unit) is outside "
                + "\(setting.range.lowerBound)...\(setting.range.upperBound)"
        case .rewindGuard(let frames, let chunk, let quarter):
            "audio rewind_guard_frames \(frames) must be at least one render chunk (\(chunk)) "
                + "and at most a quarter of the buffer (\(quarter))"
        case .device(let error):
            "audio device: \(error)"
        case .system(let error):
            "audio: \(error)"
        case .threadNotStarted(let error):
            "cannot start the render thread: \(error)"
        case .alreadyStarted:
            "the audio engine was already started"
        }
    }
}
