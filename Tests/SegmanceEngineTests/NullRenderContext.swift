import ALSA
import SegmanceAudio
@testable import SegmanceEngine

/// A `RenderContext` over `device` (the `null` PCM) and the memory it shares with the
/// control side, as the engine makes them, for the seqlock tests that drive them from two
/// threads with no render thread. The caller keeps `device` alive, then frees both with
/// `freeNullRenderContext`.
func allocateNullRenderContext(_ device: PCMDevice) throws -> UnsafeMutablePointer<RenderContext<NoRenderProbe>> {
    let configuration = EngineConfiguration(device: "null", periodFrames: 128, lockMemory: false)
    let granted = try device.configure(configuration.pcmRequest)
    let shared = UnsafeMutablePointer<RenderShared>.allocate(capacity: 1)
    shared.initialize(to: RenderShared(sampleRate: granted.rate, commandCapacity: 1, eventCapacity: 1, wakeFD: -1,
                                       commandFD: -1))
    let context = UnsafeMutablePointer<RenderContext<NoRenderProbe>>.allocate(capacity: 1)
    context.initialize(to: RenderContext(
        shared: shared, renderer: Renderer(sampleRate: granted.rate, config: configuration.render,
                                           deferringStretchers: true),
        pcm: device.realtime, configuration: granted, rewind: nil, pcmPollFDs: [], probe: NoRenderProbe()))
    return context
}

/// Frees what `allocateNullRenderContext` made.
func freeNullRenderContext(_ context: UnsafeMutablePointer<RenderContext<NoRenderProbe>>) {
    let shared = UnsafeMutablePointer(mutating: context.pointee.shared)
    context.deinitialize(count: 1)
    context.deallocate()
    shared.deinitialize(count: 1)
    shared.deallocate()
}
