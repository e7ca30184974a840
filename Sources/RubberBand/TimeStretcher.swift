import CRubberBand

/// A Rubber Band real-time stretcher for stereo Float audio, pitch kept. Owns its
/// `RubberBandState`, deleted in `deinit`.
///
/// The real-time calls go through `handle` (a plain pointer, no reference counting), so the
/// render thread can use a stretcher that this object keeps alive elsewhere.
public final class TimeStretcher {
    /// Which of the library's engines, with which window.
    public enum Engine: String, Sendable, CaseIterable {
        /// R2 ("faster"), standard window.
        case r2
        /// R3 ("finer"), standard window.
        case r3
        /// R3 with the short window: R3's timing at a third of its CPU and latency.
        case r3Short

        var options: Int32 {
            switch self {
            case .r2: Int32(RubberBandOptionEngineFaster.rawValue)
            case .r3: Int32(RubberBandOptionEngineFiner.rawValue)
            case .r3Short: Int32(RubberBandOptionEngineFiner.rawValue) | Int32(RubberBandOptionWindowShort.rawValue)
            }
        }
    }

    public let sampleRate: Int
    public let engine: Engine
    /// The largest block `Handle.process` accepts.
    public let maxBlock: Int
    /// The real-time calls.
    public let handle: Handle

    /// Creates a stereo real-time stretcher (no threads of its own) at ratio 1.
    public init(sampleRate: Int, engine: Engine, maxBlock: Int) throws(RubberBandError) {
        guard sampleRate > 0, maxBlock > 0 else {
            throw RubberBandError(function: "rubberband_new",
                                  message: "invalid rate \(sampleRate) or block \(maxBlock)")
        }
        let options = Int32(RubberBandOptionProcessRealTime.rawValue) | Int32(RubberBandOptionThreadingNever.rawValue)
            | Int32(RubberBandOptionChannelsTogether.rawValue) | engine.options
        guard let state = rubberband_new(UInt32(sampleRate), 2, options, 1, 1) else {
            throw RubberBandError(function: "rubberband_new", message: "no stretcher returned")
        }
        rubberband_set_max_process_size(state, UInt32(maxBlock))
        let channels = rubberband_get_channel_count(state)
        guard channels == 2 else {
            rubberband_delete(state)
            throw RubberBandError(function: "rubberband_get_channel_count", message: "\(channels) channels, not 2")
        }
        self.sampleRate = sampleRate
        self.engine = engine
        self.maxBlock = maxBlock
        self.handle = Handle(state: state)
    }

    deinit { rubberband_delete(handle.state) }

    /// The library version the project was built against (`RUBBERBAND_VERSION`).
    public static let libraryVersion: String = RUBBERBAND_VERSION

    /// Whether `Handle.reset` calls the heap: from Rubber Band 3.2 on, an R3 stretcher's
    /// reset frees and makes again its bin classifier's queue (3.1 kept the old entries). The
    /// ratio may then also be set after the reset with the same result (3.2 takes the hop of a
    /// reset stretcher from the first ratio it is given), so a reset can be done ahead of time.
    public static let resetCallsTheHeap: Bool = {
        let parts = libraryVersion.split(separator: ".").map { Int($0) ?? 0 }
        return (parts.first ?? 0, parts.count > 1 ? parts[1] : 0) >= (3, 2)
    }()

    /// The real-time calls on a stretcher owned by a `TimeStretcher`: valid while it lives.
    /// None of them allocates once the stretcher has run at the ratios it will see, but
    /// `reset` from Rubber Band 3.2 on (`resetCallsTheHeap`).
    public struct Handle: @unchecked Sendable {
        let state: RubberBandState

        /// Forgets all input and output, keeps the ratio. Calls the heap from 3.2 on.
        @inline(__always)
        public func reset() { rubberband_reset(state) }

        /// Output duration over input duration (1 / speed).
        @inline(__always)
        public func setTimeRatio(_ ratio: Double) { rubberband_set_time_ratio(state, ratio) }

        /// Frames of input to feed before the first frame that should be heard.
        public var startPad: Int { Int(rubberband_get_preferred_start_pad(state)) }

        /// Output frames to drop after feeding `startPad`, so output frame 0 is input frame
        /// `startPad`.
        public var startDelay: Int { Int(rubberband_get_start_delay(state)) }

        /// Feeds `frames` (≤ `maxBlock`) frames of deinterleaved stereo.
        @inline(__always)
        public func process(left: UnsafePointer<Float>, right: UnsafePointer<Float>, frames: Int) {
            var channels: (UnsafePointer<Float>?, UnsafePointer<Float>?) = (left, right)
            withUnsafeMutablePointer(to: &channels) { p in
                p.withMemoryRebound(to: UnsafePointer<Float>?.self, capacity: 2) {
                    rubberband_process(state, $0, UInt32(frames), 0)
                }
            }
        }

        /// Output frames ready to retrieve.
        @inline(__always)
        public var available: Int { max(0, Int(rubberband_available(state))) }

        /// Moves up to `frames` ready frames out, deinterleaved; returns how many.
        @inline(__always)
        public func retrieve(left: UnsafeMutablePointer<Float>, right: UnsafeMutablePointer<Float>, frames: Int) -> Int
        {
            var channels: (UnsafeMutablePointer<Float>?, UnsafeMutablePointer<Float>?) = (left, right)
            return withUnsafeMutablePointer(to: &channels) { p in
                p.withMemoryRebound(to: UnsafeMutablePointer<Float>?.self, capacity: 2) {
                    Int(rubberband_retrieve(state, $0, UInt32(frames)))
                }
            }
        }
    }
}
