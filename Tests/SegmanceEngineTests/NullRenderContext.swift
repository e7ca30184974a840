import ALSA
import SegmanceAudio
@testable import SegmanceEngine

/// A `RenderContext` over `device` (the `null` PCM) as the engine makes one, for the
/// seqlock tests that drive it from two threads with no render thread. The caller keeps
/// `device` alive, then deinitializes and deallocates the context.
func allocateNullRenderContext(_ device: PCMDevice) throws -> UnsafeMutablePointer<RenderContext> {
    let configuration = EngineConfiguration(device: "null", periodFrames: 128, lockMemory: false)
    let granted = try device.configure(configuration.pcmRequest)
    let context = UnsafeMutablePointer<RenderContext>.allocate(capacity: 1)
    context.initialize(to: RenderContext(
        renderer: Renderer(sampleRate: granted.rate, config: configuration.render, deferringStretchers: true),
        pcm: device.handle, configuration: granted, rewind: nil, pcmPollFDs: [], commandFD: -1,
        commandCapacity: 1, eventCapacity: 1, wakeFD: -1, probe: nil))
    return context
}
