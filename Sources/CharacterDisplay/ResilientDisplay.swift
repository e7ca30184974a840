import SegmanceScreen

/// Keeps drawing whatever happens to the display: a failure is logged once, the display is
/// retried with each new frame (at most every `retryInterval`), and its return is logged.
/// Never throws, so a loose LCD cable can't stop the music.
public final class ResilientDisplay {
    public let display: CharacterDisplay
    public let retryInterval: Int64
    private let log: (String) -> Void
    private var failedSince: Int64?
    private var lastAttempt: Int64 = .min
    private var pending: Frame?
    public private(set) var failures = 0

    public init(_ display: CharacterDisplay, retryInterval: Int64 = 1_000_000_000, log: @escaping (String) -> Void) {
        self.display = display
        self.retryInterval = retryInterval
        self.log = log
    }

    /// True while the display is failing.
    public var isFailing: Bool { failedSince != nil }

    /// Shows `frame` at monotonic time `now` (ns), or keeps it for the next retry.
    public func show(_ frame: Frame, now: Int64) {
        pending = frame
        if failedSince != nil, now - lastAttempt < retryInterval { return }
        lastAttempt = now
        do {
            try display.show(frame)
            pending = nil
            if let since = failedSince {
                log("display answers again after \((now - since) / 1_000_000) ms")
                failedSince = nil
            }
        } catch {
            failures += 1
            if failedSince == nil {
                failedSince = now
                log("display failed: \(error); retrying every \(retryInterval / 1_000_000) ms, playback goes on")
            }
        }
    }

    /// Retries a frame held back by a failure, when the interval has passed.
    public func retry(now: Int64) {
        if let pending, failedSince != nil { show(pending, now: now) }
    }
}
