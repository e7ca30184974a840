/// What a test or a benchmark runs on the render thread at fixed points, given when the
/// engine is made (`RealtimeAudioEngine(output:configuration:probe:)`). The render loops are
/// generic over it: the product's `NoRenderProbe` does nothing, and its calls compile away.
///
/// The methods run on the render thread: like it, they must not allocate, lock, log or
/// retain an object (a probe is a plain value).
public protocol RenderProbe: Sendable {
    /// First thing on the render thread.
    func threadStarted()
    /// Last thing on it; an answer is `RealtimeAudioEngine.probeResult`.
    func threadEnding() -> Int?
    /// Before each write to the device.
    func beforeWrite()
    /// At the start of each chunk of a deep-buffer refill (`EngineConfiguration.Rewind`):
    /// `commandFD` becomes readable when a command is queued; a write to `wakeFD` wakes the
    /// control side.
    func chunkStarting(commandFD: Int32, wakeFD: Int32)
}

extension RenderProbe {
    @inline(__always) public func threadStarted() {}
    @inline(__always) public func threadEnding() -> Int? { nil }
    @inline(__always) public func beforeWrite() {}
    @inline(__always) public func chunkStarting(commandFD: Int32, wakeFD: Int32) {}
}

/// The product's probe: nothing.
public struct NoRenderProbe: RenderProbe {
    public init() {}
}

/// Calls around the render thread's body: `begin` first thing after its start-up and `end`
/// last thing before it exits (`@convention(c)`: no context, nothing to retain). The
/// benchmark and the allocation tests pass a malloc counter's begin and end.
public struct RenderThreadProbe: RenderProbe {
    public var begin: @convention(c) () -> Void
    public var end: @convention(c) () -> Int
    public init(begin: @convention(c) () -> Void, end: @convention(c) () -> Int) {
        self.begin = begin
        self.end = end
    }

    public func threadStarted() { begin() }
    public func threadEnding() -> Int? { end() }
}

/// No probe, or the one given.
extension Optional: RenderProbe where Wrapped: RenderProbe {
    public func threadStarted() { self?.threadStarted() }
    public func threadEnding() -> Int? { self?.threadEnding() ?? nil }
    public func beforeWrite() { self?.beforeWrite() }
    public func chunkStarting(commandFD: Int32, wakeFD: Int32) {
        self?.chunkStarting(commandFD: commandFD, wakeFD: wakeFD)
    }
}
