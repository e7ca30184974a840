import Atomics
import LinuxSystem
import SegmanceAudio

/// Makes a renderer's stretch voices and warms them up (`RenderWarmUp.makeStretchers`) on a
/// thread of its own, so the engine's control side — the thread that
/// also reads the buttons and draws the LCD — is not held for the tens of milliseconds it
/// takes. When done it makes `wakeDescriptor` readable; the control side then takes the
/// result (`take()`, after `isDone`) and joins the thread.
///
/// The fields the worker writes are written before `done` is set (releasing) and read only
/// after it is seen set (acquiring).
final class StretcherMaker: @unchecked Sendable {
    private let configuration: EngineConfiguration
    private let rate: Int
    private let wakeDescriptor: Int32
    private let done = ManagedAtomic<Bool>(false)
    private var made: StretchStorage?
    private var nanoseconds: Int64 = 0
    private var thread: SystemThread?
    /// CLOCK_MONOTONIC (ns) when the making was started.
    let started: Int64

    /// Starts making them; nil when no thread could be started (the caller then makes them
    /// itself).
    init?(configuration: EngineConfiguration, rate: Int, wakeDescriptor: Int32) {
        self.configuration = configuration
        self.rate = rate
        self.wakeDescriptor = wakeDescriptor
        started = monotonicNanoseconds()
        do {
            thread = try SystemThread(name: "segmance-stretch") { self.threadMain() }
        } catch {
            return nil
        }
    }

    // The engine joins it (`take()`, `wait()`) before letting go; a maker let go of otherwise
    // leaves its thread to finish on its own.
    deinit { thread?.detach() }

    private func threadMain() {
        let begin = monotonicNanoseconds()
        made = RenderWarmUp.makeStretchers(configuration, sampleRate: rate)
        nanoseconds = monotonicNanoseconds() - begin
        done.store(true, ordering: .releasing)
        EventDescriptor.signal(wakeDescriptor)
    }

    /// Whether the worker has finished (with or without stretchers).
    var isDone: Bool { done.load(ordering: .acquiring) }

    /// Waits for the worker, then hands over what it made (nil: they could not be made) and
    /// how long making and warming them up took on the worker (ns).
    func take() -> (StretchStorage?, Int64) {
        join()
        precondition(isDone)
        defer { made = nil }
        return (made, nanoseconds)
    }

    /// Waits for the worker to finish.
    func wait() { join() }

    private func join() {
        thread?.join()
        thread = nil
    }
}
