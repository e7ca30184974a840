import SegmanceAudio

/// The audio side as the daemon's loop drives it: the engine the appliance sends commands
/// to, and what the loop does with it around that (its wake, its log, its start and end,
/// the memory it keeps resident). `RealtimeAudio` is the board's; tests bring their own.
public protocol DaemonAudio: AnyObject {
    /// What the appliance sends commands to and reads positions from.
    var engine: AudioEngine { get }
    /// Readable when the audio side has reports waiting; nil to be polled every
    /// `Daemon.audioPollNanoseconds` instead.
    var wakeDescriptor: Int32? { get }
    /// Whether the audio side locks the process's memory (`mlockall`, on fault).
    var locksMemory: Bool { get }
    /// Whether `start` must be called for the render thread to run (false: it runs already).
    var startsLater: Bool { get }
    /// Whether the render thread, once started, has filled its buffer and woken for more:
    /// it has run every code path it runs while nothing plays.
    var settled: Bool { get }
    /// Lines the audio side wants logged (xruns, scheduling granted), with their priority;
    /// drained by the loop.
    func takeLog() -> [(priority: Log.Priority, text: String)]
    /// Lets what was sent (the ramp-out of the last pause) and what is queued play out,
    /// then ends the audio side.
    func shutdown()
    /// Runs the render code through all its paths off the real-time thread, so it is
    /// resident (and locked) before that thread needs it.
    func warmUp()
    /// Makes `wakeDescriptor` readable once the position reaches `frame` (nil: no watch);
    /// false when it cannot, and the loop then looks again by itself.
    func watchPosition(reaching frame: Int64?) -> Bool
    /// Starts the render thread (when `startsLater`); returns whether the process's memory
    /// was locked. Called once start-up's memory was given back and the render code warmed up,
    /// so that the render thread never runs while the trim drops the pages of its code.
    func start() throws -> Bool
}

extension DaemonAudio {
    public var wakeDescriptor: Int32? { nil }
    public var locksMemory: Bool { false }
    public var startsLater: Bool { false }
    public var settled: Bool { true }
    public func takeLog() -> [(priority: Log.Priority, text: String)] { [] }
    public func shutdown() {}
    public func warmUp() {}
    public func watchPosition(reaching frame: Int64?) -> Bool { false }
    public func start() throws -> Bool { locksMemory }
}
