import CALSA
import LinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// An open ALSA PCM (`snd_pcm_t`), closed when the object goes away.
///
/// Any PCM name alsa-lib understands works: `default`, `hw:0,0`, `plughw:1`, `null`,
/// `file:FILE=/tmp/out.raw,FORMAT=raw`, or a PCM defined in an ALSA configuration.
///
/// One thread uses a device at a time (the control side configures it, then hands it to the
/// render thread); it is `@unchecked Sendable` so it can be handed over.
/// The `raw…` methods return alsa-lib's results unchanged and build no error value, for
/// the render thread, which must not allocate.
public final class PCMDevice: @unchecked Sendable {
    /// The name the PCM was opened with.
    public let name: String
    /// Playback or capture.
    public let stream: PCMStream
    /// The `snd_pcm_t *` handle; valid for the lifetime of this object.
    let handle: OpaquePointer
    /// What `configure` last granted; nil before.
    public internal(set) var configuration: PCMConfiguration?
    /// The private configuration tree the PCM was opened from, if any; freed after it.
    private let localDefinitions: OpaquePointer?
    /// Whether calls that find no room return at once (`snd_pcm_nonblock`).
    public private(set) var isNonBlocking: Bool

    /// Opens a PCM (`snd_pcm_open`). With `nonBlocking`, writes that find no room return 0
    /// instead of waiting.
    public init(name: String, stream: PCMStream = .playback, nonBlocking: Bool = false) throws(ALSAError) {
        var pcm: OpaquePointer?
        let result = snd_pcm_open(&pcm, name, stream.alsaStream, nonBlocking ? Int32(SND_PCM_NONBLOCK) : 0)
        guard result >= 0, let pcm else {
            throw ALSAError(function: "snd_pcm_open", pcm: name, result: result < 0 ? result : -EINVAL,
                            detail: "cannot open \(stream == .playback ? "playback" : "capture") PCM '\(name)'")
        }
        self.name = name
        self.stream = stream
        self.handle = pcm
        localDefinitions = nil
        isNonBlocking = nonBlocking
    }

    /// Opens `name` as defined in `definitions`, ALSA configuration text such as
    /// `pcm.tap { type file slave.pcm "null" file "/tmp/x.raw" format raw }`
    /// (`snd_pcm_open_lconf`). The process's global ALSA configuration is neither read nor
    /// changed, so PCMs can be defined privately while other code uses alsa-lib.
    /// Plugin types the text does not define (`jack`, …) load from alsa-lib's plugin folder.
    public init(name: String, definitions: String, stream: PCMStream = .playback) throws(ALSAError) {
        var tree: OpaquePointer?
        var result = snd_config_top(&tree)
        guard result >= 0, let tree else {
            throw ALSAError(function: "snd_config_top", pcm: name, result: result)
        }
        var input: OpaquePointer?
        result = definitions.withCString { snd_input_buffer_open(&input, $0, -1) }
        if result >= 0, let input {
            result = snd_config_load(tree, input)
            snd_input_close(input)
        }
        guard result >= 0 else {
            snd_config_delete(tree)
            throw ALSAError(function: "snd_config_load", pcm: name, result: result,
                            detail: "the PCM definitions do not parse")
        }
        var pcm: OpaquePointer?
        result = snd_pcm_open_lconf(&pcm, name, stream.alsaStream, 0, tree)
        guard result >= 0, let pcm else {
            snd_config_delete(tree)
            throw ALSAError(function: "snd_pcm_open_lconf", pcm: name, result: result < 0 ? result : -EINVAL,
                            detail: "cannot open \(stream == .playback ? "playback" : "capture") PCM '\(name)'")
        }
        self.name = name
        self.stream = stream
        handle = pcm
        localDefinitions = tree
        isNonBlocking = false
    }

    deinit {
        snd_pcm_close(handle)
        if let localDefinitions { snd_config_delete(localDefinitions) }
    }

    /// The PCM's own name as alsa-lib reports it (`snd_pcm_name`).
    public var alsaName: String {
        snd_pcm_name(handle).map { String(cString: $0) } ?? name
    }

    /// The current state (`snd_pcm_state`).
    public var state: PCMState {
        PCMState(snd_pcm_state(handle))
    }

    /// Switches between blocking and non-blocking writes (`snd_pcm_nonblock`).
    public func setNonBlocking(_ nonBlocking: Bool) throws(ALSAError) {
        try check(snd_pcm_nonblock(handle, nonBlocking ? 1 : 0), "snd_pcm_nonblock")
        isNonBlocking = nonBlocking
    }

    // MARK: Writing

    /// Writes up to `frames` interleaved frames in the configured format (`snd_pcm_writei`)
    /// and returns how many were taken. A blocking PCM takes them all unless interrupted;
    /// a non-blocking one returns 0 when it has no room (`-EAGAIN`).
    /// An xrun throws an error with `isXrun`; pass it to `recover`.
    public func writeInterleaved(_ buffer: UnsafeRawPointer, frames: Int) throws(ALSAError) -> Int {
        let written = rawWriteInterleaved(buffer, frames: frames)
        if written >= 0 { return written }
        if written == -Int(EAGAIN) { return 0 }
        throw ALSAError(function: "snd_pcm_writei", pcm: name, result: Int32(truncatingIfNeeded: written))
    }

    /// `snd_pcm_writei` unchanged: frames written, or a negative errno.
    public func rawWriteInterleaved(_ buffer: UnsafeRawPointer, frames: Int) -> Int {
        snd_pcm_writei(handle, buffer, snd_pcm_uframes_t(max(0, frames)))
    }

    // MARK: Recovery and control

    /// Recovers from an xrun (`EPIPE`) or a suspend (`ESTRPIPE`) with `snd_pcm_recover`;
    /// throws when the error is of another kind or recovery fails.
    public func recover(_ error: ALSAError, silent: Bool = true) throws(ALSAError) {
        try recover(error.alsaResult, silent: silent)
    }

    /// Recovers from a negative alsa-lib result such as `-EPIPE` (`snd_pcm_recover`).
    public func recover(_ result: Int32, silent: Bool = true) throws(ALSAError) {
        let recovered = rawRecover(result, silent: silent)
        guard recovered >= 0 else {
            throw ALSAError(function: "snd_pcm_recover", pcm: name, result: recovered,
                            detail: "could not recover from: \(String(cString: snd_strerror(result)))")
        }
    }

    /// `snd_pcm_recover` unchanged: 0, or the negative errno it could not recover from.
    public func rawRecover(_ result: Int32, silent: Bool = true) -> Int32 {
        snd_pcm_recover(handle, result, silent ? 1 : 0)
    }

    /// Frames between what the application writes now and what sounds now (`snd_pcm_delay`):
    /// the output latency in frames.
    public func delay() throws(ALSAError) -> Int {
        var frames: snd_pcm_sframes_t = 0
        try check(snd_pcm_delay(handle, &frames), "snd_pcm_delay")
        return frames
    }

    /// Frames that can be written without blocking (`snd_pcm_avail_update`).
    public func avail() throws(ALSAError) -> Int {
        let frames = snd_pcm_avail_update(handle)
        if frames < 0 {
            throw ALSAError(function: "snd_pcm_avail_update", pcm: name, result: Int32(truncatingIfNeeded: frames))
        }
        return frames
    }

    /// Plays out what is queued, then stops (`snd_pcm_drain`). Blocks on a blocking PCM.
    public func drain() throws(ALSAError) {
        try check(snd_pcm_drain(handle), "snd_pcm_drain")
    }

    /// Plays out what is queued, then stops, but waits at most `timeoutNanoseconds`: a
    /// device that stopped consuming (a stalled server, a hung USB DAC) is then stopped
    /// with `snd_pcm_drop` and the answer is false. True when everything queued played.
    ///
    /// A blocking `snd_pcm_drain` waits with no limit on alsa-lib's user-space PCMs, so
    /// this drains in non-blocking mode. The call is repeated until it answers 0 (an I/O
    /// plugin and the `file` plugin finish their drain, and the tap writes its last bytes,
    /// only then); the kernel answers `EAGAIN` to every non-blocking call, so for a hardware
    /// PCM the state leaving DRAINING says it is done. Between calls it sleeps for as long
    /// as the queued audio takes to play (`snd_pcm_delay`, at least 1 ms): no descriptor
    /// says "drained" (a draining kernel PCM polls ready whenever it has room).
    /// The PCM is left in the blocking mode it was in.
    public func drain(timeoutNanoseconds: Int64) throws(ALSAError) -> Bool {
        let wasNonBlocking = isNonBlocking
        try setNonBlocking(true)
        defer { try? setNonBlocking(wasNonBlocking) }
        let deadline = monotonicNanoseconds() + timeoutNanoseconds
        while true {
            let result = snd_pcm_drain(handle)
            if result == 0 { return true }
            guard result == -EAGAIN else {
                throw ALSAError(function: "snd_pcm_drain", pcm: name, result: result)
            }
            let state = snd_pcm_state(handle)
            if state != SND_PCM_STATE_DRAINING && state != SND_PCM_STATE_RUNNING { return true }
            let now = monotonicNanoseconds()
            if now >= deadline {
                try drop()
                return false
            }
            var queued: snd_pcm_sframes_t = 0
            if snd_pcm_delay(handle, &queued) < 0 { queued = 0 }
            let playing = Int64(max(0, queued)) * 1_000_000_000 / Int64(max(1, configuration?.rate ?? 48_000))
            let wait = min(max(playing, 1_000_000), deadline - now)
            sleepMonotonic(nanoseconds: wait)
        }
    }

    /// Stops at once, discarding what is queued (`snd_pcm_drop`).
    public func drop() throws(ALSAError) {
        try check(snd_pcm_drop(handle), "snd_pcm_drop")
    }

    /// Makes the PCM ready to start again (`snd_pcm_prepare`).
    public func prepare() throws(ALSAError) {
        try check(snd_pcm_prepare(handle), "snd_pcm_prepare")
    }

    /// Starts the PCM before the start threshold is reached (`snd_pcm_start`).
    public func start() throws(ALSAError) {
        try check(snd_pcm_start(handle), "snd_pcm_start")
    }

    /// Waits until the PCM is ready for I/O (`snd_pcm_wait`); false on timeout.
    /// A negative timeout waits forever.
    public func wait(timeoutMilliseconds: Int32 = -1) throws(ALSAError) -> Bool {
        let result = snd_pcm_wait(handle, timeoutMilliseconds)
        if result < 0 { throw ALSAError(function: "snd_pcm_wait", pcm: name, result: result) }
        return result > 0
    }

    // MARK: Polling

    /// The descriptors to `poll` for this PCM
    /// (`snd_pcm_poll_descriptors_count` / `snd_pcm_poll_descriptors`).
    public func pollDescriptors() throws(ALSAError) -> [pollfd] {
        let count = snd_pcm_poll_descriptors_count(handle)
        if count < 0 { throw ALSAError(function: "snd_pcm_poll_descriptors_count", pcm: name, result: count) }
        var descriptors = [pollfd](repeating: pollfd(), count: Int(count))
        let filled = descriptors.withUnsafeMutableBufferPointer {
            snd_pcm_poll_descriptors(handle, $0.baseAddress, UInt32(count))
        }
        if filled < 0 { throw ALSAError(function: "snd_pcm_poll_descriptors", pcm: name, result: filled) }
        return Array(descriptors.prefix(Int(filled)))
    }

    /// Turns what `poll` returned in `descriptors` into the PCM's events, e.g. `POLLOUT`
    /// (`snd_pcm_poll_descriptors_revents`).
    public func pollEvents(_ descriptors: inout [pollfd]) throws(ALSAError) -> Int16 {
        var events: UInt16 = 0
        let count = UInt32(descriptors.count)
        let result = descriptors.withUnsafeMutableBufferPointer {
            snd_pcm_poll_descriptors_revents(handle, $0.baseAddress, count, &events)
        }
        if result < 0 { throw ALSAError(function: "snd_pcm_poll_descriptors_revents", pcm: name, result: result) }
        return Int16(bitPattern: events)
    }

    func check(_ result: Int32, _ function: String, detail: @autoclosure () -> String? = nil) throws(ALSAError) {
        if result < 0 {
            throw ALSAError(function: function, pcm: name, result: result, detail: detail())
        }
    }
}
