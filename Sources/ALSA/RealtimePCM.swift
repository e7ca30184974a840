import CALSA
#if canImport(Glibc)
import Glibc
#endif

/// The calls a real-time thread makes on an open `PCMDevice`: each is one alsa-lib call that
/// returns its result unchanged (a count, or a negative errno such as `-EPIPE`) and builds
/// no error value, so none allocates, locks or retains anything. A plain value (the
/// `snd_pcm_t *`), valid while the `PCMDevice` it came from (`PCMDevice.realtime`) is open;
/// one thread uses it at a time. A failure becomes an `ALSAError` on the control side
/// (`ALSAError(function:pcm:result:)`).
public struct RealtimePCM: @unchecked Sendable {
    private let pcm: OpaquePointer

    init(_ pcm: OpaquePointer) { self.pcm = pcm }

    /// `snd_pcm_wait`: 1 when the PCM is ready for I/O, 0 on timeout, or a negative errno.
    @inline(__always)
    public func wait(timeoutMilliseconds: Int32) -> Int32 { snd_pcm_wait(pcm, timeoutMilliseconds) }

    /// `snd_pcm_writei`: frames written, or a negative errno (`-EAGAIN`: no room).
    @inline(__always)
    public func writei(_ buffer: UnsafeRawPointer, frames: Int) -> Int {
        snd_pcm_writei(pcm, buffer, snd_pcm_uframes_t(max(0, frames)))
    }

    /// `snd_pcm_delay`: frames between the newest written and the one sounding now, or nil
    /// when the call failed.
    @inline(__always)
    public func delay() -> Int? {
        var frames: snd_pcm_sframes_t = 0
        return snd_pcm_delay(pcm, &frames) >= 0 ? frames : nil
    }

    /// `snd_pcm_avail`: frames of room, with the hardware pointer synchronised first, or a
    /// negative errno.
    @inline(__always)
    public func avail() -> Int { snd_pcm_avail(pcm) }

    /// `snd_pcm_avail_update`: frames of room as of the last pointer update, or a negative errno.
    @inline(__always)
    public func availUpdate() -> Int { snd_pcm_avail_update(pcm) }

    /// `snd_pcm_rewindable`: frames that can be rewound, or a negative errno.
    @inline(__always)
    public func rewindable() -> Int { snd_pcm_rewindable(pcm) }

    /// `snd_pcm_rewind`: frames rewound, or a negative errno.
    @inline(__always)
    public func rewind(frames: Int) -> Int { snd_pcm_rewind(pcm, snd_pcm_uframes_t(max(0, frames))) }

    /// `snd_pcm_forward`: frames moved forward, or a negative errno.
    @inline(__always)
    public func forward(frames: Int) -> Int { snd_pcm_forward(pcm, snd_pcm_uframes_t(max(0, frames))) }

    /// `snd_pcm_recover` (silent): 0 once an xrun, a suspend or an interrupted call is
    /// mended, or the negative errno it could not recover from.
    @inline(__always)
    public func recover(_ result: Int32) -> Int32 { snd_pcm_recover(pcm, result, 1) }

    /// `snd_pcm_start`: 0, or a negative errno.
    @discardableResult @inline(__always)
    public func start() -> Int32 { snd_pcm_start(pcm) }

    /// `snd_pcm_state`.
    @inline(__always)
    public var state: PCMState { PCMState(snd_pcm_state(pcm)) }

    /// `snd_pcm_poll_descriptors_revents` over the PCM's `count` descriptors at `descriptors`
    /// after a `poll`: the PCM's events (`POLLOUT`, `POLLERR`), or nil when the call failed.
    @inline(__always)
    public func pollEvents(_ descriptors: UnsafeMutablePointer<pollfd>, count: Int) -> UInt16? {
        var events: UInt16 = 0
        let result = snd_pcm_poll_descriptors_revents(pcm, descriptors, UInt32(count), &events)
        return result >= 0 ? events : nil
    }
}

extension PCMDevice {
    /// The render thread's calls on this PCM; valid while this device is open.
    public var realtime: RealtimePCM { RealtimePCM(handle) }
}
