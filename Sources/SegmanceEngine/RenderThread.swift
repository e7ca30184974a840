/// The render thread's context as the engine keeps it, whatever its probe type: the memory,
/// and what runs and frees it. The thread's entry (`renderThreadEntry`) is a plain C
/// function, so the thread starts with no closure context; it reaches the context through
/// this record, whose `body` is an empty value (nothing to retain).
struct RenderThread {
    let context: UnsafeMutableRawPointer
    let body: any RenderThreadBody

    /// Allocates `context` for the thread.
    init<Probe: RenderProbe>(_ context: consuming RenderContext<Probe>) {
        let memory = UnsafeMutablePointer<RenderContext<Probe>>.allocate(capacity: 1)
        memory.initialize(to: context)
        self.context = UnsafeMutableRawPointer(memory)
        body = RenderThreadBodyOf<Probe>()
    }

    /// Frees the context; call once, after the thread was joined (or never started).
    func destroy() { body.destroy(context) }
}

/// Runs and frees a `RenderContext` of one probe type.
protocol RenderThreadBody {
    func run(_ context: UnsafeMutableRawPointer)
    func destroy(_ context: UnsafeMutableRawPointer)
}

struct RenderThreadBodyOf<Probe: RenderProbe>: RenderThreadBody {
    func run(_ context: UnsafeMutableRawPointer) {
        context.assumingMemoryBound(to: RenderContext<Probe>.self).pointee.run()
    }

    func destroy(_ context: UnsafeMutableRawPointer) {
        let memory = context.assumingMemoryBound(to: RenderContext<Probe>.self)
        memory.deinitialize(count: 1)
        memory.deallocate()
    }
}

/// The render thread's entry point; the argument is the engine's `RenderThread`.
func renderThreadEntry(_ argument: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let argument else { return nil }
    let thread = argument.assumingMemoryBound(to: RenderThread.self)
    thread.pointee.body.run(thread.pointee.context)
    return nil
}
