import CALSA

/// Direction of a PCM.
public enum PCMStream: Sendable {
    case playback
    case capture

    var alsaStream: snd_pcm_stream_t {
        self == .playback ? SND_PCM_STREAM_PLAYBACK : SND_PCM_STREAM_CAPTURE
    }
}

/// `snd_pcm_state_t` as a Swift enum.
public enum PCMState: Equatable, Sendable {
    case open, setup, prepared, running, xrun, draining, paused, suspended, disconnected
    /// A state this wrapper does not know (a newer alsa-lib).
    case other(UInt32)

    init(_ state: snd_pcm_state_t) {
        switch state {
        case SND_PCM_STATE_OPEN: self = .open
        case SND_PCM_STATE_SETUP: self = .setup
        case SND_PCM_STATE_PREPARED: self = .prepared
        case SND_PCM_STATE_RUNNING: self = .running
        case SND_PCM_STATE_XRUN: self = .xrun
        case SND_PCM_STATE_DRAINING: self = .draining
        case SND_PCM_STATE_PAUSED: self = .paused
        case SND_PCM_STATE_SUSPENDED: self = .suspended
        case SND_PCM_STATE_DISCONNECTED: self = .disconnected
        default: self = .other(UInt32(state.rawValue))
        }
    }
}
