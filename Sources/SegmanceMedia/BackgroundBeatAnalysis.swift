import Aubio
import LinuxSystem
#if canImport(Glibc)
import Glibc
#endif

/// Beat detection of a file on a thread of its own while the file is decoded: the decoding
/// thread hands over the frames of one excerpt (`offer`), a bounded queue carries them to
/// a `BeatAnalysis` on the other thread, and `finish()` waits for what it found. On a
/// machine with two cores the analysis costs the import no wall time; a full queue makes
/// the decoding wait, so at most `depth` chunks of sound are held.
///
/// libaubio is opened (`dlopen`, the first time in a process) on that thread too.
public final class BackgroundBeatAnalysis {
    /// The file frames analysed: those offered outside it are not taken.
    public let excerpt: Range<Int>
    private let channel: Channel
    private var thread: SystemThread?

    /// Chunks waiting at most.
    static let depth = 8
    /// The analysis thread's stack: aubio and the analysis keep their data on the heap.
    static let stackBytes = 1 << 20

    /// What `finish()` returns: the detection, and how many frames of the excerpt it saw
    /// (from its start, in order).
    public struct Outcome: Sendable {
        public var detection: Result<BeatDetection, AubioError>
        public var frames: Int
    }

    /// Starts the thread analysing `excerpt` (file frames) with `detector`; nil when no
    /// thread can be started (the caller detects afterwards instead).
    public init?(detector: BeatDetector, excerpt: Range<Int>) {
        guard !excerpt.isEmpty else { return nil }
        self.excerpt = excerpt
        let channel = Channel(detector: detector, start: excerpt.lowerBound)
        self.channel = channel
        guard let thread = try? SystemThread(name: "segmance-beats", stackBytes: Self.stackBytes, { channel.run() })
        else { return nil }
        self.thread = thread
    }

    deinit {
        channel.cancel()
        join()
    }

    /// Offers decoded interleaved stereo frames whose first is file frame `frame`; the part
    /// inside the excerpt is copied to the queue (waiting while it is full).
    public func offer(_ samples: UnsafeBufferPointer<Int16>, at frame: Int) {
        let frames = samples.count / 2
        let lower = max(frame, excerpt.lowerBound), upper = min(frame + frames, excerpt.upperBound)
        guard lower < upper, let base = samples.baseAddress else { return }
        channel.push(Array(UnsafeBufferPointer(start: base + (lower - frame) * 2, count: (upper - lower) * 2)))
    }

    /// Waits for the analysis of what was offered.
    public func finish() -> Outcome? {
        channel.close()
        join()
        return channel.outcome
    }

    /// Stops the analysis and waits for its thread (the file failed or the import stops).
    public func cancel() {
        channel.cancel()
        join()
    }

    private func join() {
        thread?.join()
    }

    /// The queue between the two threads and the analysis's result, under one lock.
    private final class Channel: @unchecked Sendable {
        let detector: BeatDetector
        let start: Int
        private let lock = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let changed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var queue: [[Int16]] = []
        private var closed = false
        private var cancelled = false
        private var result: Outcome?

        init(detector: BeatDetector, start: Int) {
            self.detector = detector
            self.start = start
            pthread_mutex_init(lock, nil)
            pthread_cond_init(changed, nil)
        }

        deinit {
            pthread_cond_destroy(changed)
            pthread_mutex_destroy(lock)
            lock.deallocate()
            changed.deallocate()
        }

        private func locked<T>(_ body: () -> T) -> T {
            pthread_mutex_lock(lock)
            defer { pthread_mutex_unlock(lock) }
            return body()
        }

        func push(_ chunk: [Int16]) {
            locked {
                while queue.count >= BackgroundBeatAnalysis.depth && !cancelled { pthread_cond_wait(changed, lock) }
                guard !cancelled, !closed else { return }
                queue.append(chunk)
                pthread_cond_broadcast(changed)
            }
        }

        func close() {
            locked {
                closed = true
                pthread_cond_broadcast(changed)
            }
        }

        func cancel() {
            locked {
                cancelled = true
                queue.removeAll()
                pthread_cond_broadcast(changed)
            }
        }

        var outcome: Outcome? { locked { result } }

        /// The analysis thread: feeds every chunk in order until the queue is closed.
        func run() {
            let analysis = Result { () throws(AubioError) in try BeatAnalysis(detector, start: start) }
            while true {
                let next: [Int16]? = locked {
                    while queue.isEmpty && !closed && !cancelled { pthread_cond_wait(changed, lock) }
                    guard !cancelled, !queue.isEmpty else { return nil }
                    let chunk = queue.removeFirst()
                    pthread_cond_broadcast(changed)
                    return chunk
                }
                guard let next else { break }
                // Without libaubio the chunks are only taken off the queue.
                if case .success(let a) = analysis { next.withUnsafeBufferPointer { a.feed($0) } }
            }
            let done: Outcome? = locked { cancelled } ? nil : {
                switch analysis {
                case .success(let a): Outcome(detection: .success(a.finish()), frames: a.frames)
                case .failure(let error): Outcome(detection: .failure(error), frames: 0)
                }
            }()
            locked { result = done }
        }
    }
}
