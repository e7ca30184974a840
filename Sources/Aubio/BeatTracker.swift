import CAubio

/// aubio's beat tracker (`aubio_tempo_t`, its default method) over a mono signal fed in
/// hops. Owns the tracker and its two vectors, deleted in `deinit`. Not thread-safe.
public final class BeatTracker {
    public let sampleRate: Int
    public let hopSize: Int
    public let windowSize: Int
    private let tempo: OpaquePointer
    private let input: UnsafeMutablePointer<fvec_t>
    private let output: UnsafeMutablePointer<fvec_t>
    /// Samples waiting for a whole hop.
    private var pending: [Float] = []
    /// The beats found so far, in samples from the start of the signal fed.
    public private(set) var beats: [Double] = []

    /// A tracker for `sampleRate`, analysing windows of `windowSize` samples every `hopSize`.
    public init(sampleRate: Int, windowSize: Int, hopSize: Int) throws(AubioError) {
        guard sampleRate > 0, hopSize > 0, windowSize >= hopSize else {
            throw AubioError(function: "new_aubio_tempo",
                             message: "invalid rate \(sampleRate), window \(windowSize) or hop \(hopSize)")
        }
        AubioLog.reset()
        guard let tempo = new_aubio_tempo("default", UInt32(windowSize), UInt32(hopSize), UInt32(sampleRate)) else {
            throw AubioError(function: "new_aubio_tempo", message: AubioLog.message(or: "no tracker returned"))
        }
        guard let input = new_fvec(UInt32(hopSize)), let output = new_fvec(2) else {
            del_aubio_tempo(tempo)
            throw AubioError(function: "new_fvec", message: AubioLog.message(or: "no vector returned"))
        }
        self.tempo = tempo
        self.input = input
        self.output = output
        self.sampleRate = sampleRate
        self.hopSize = hopSize
        self.windowSize = windowSize
        pending.reserveCapacity(hopSize)
    }

    deinit {
        del_aubio_tempo(tempo)
        del_fvec(input)
        del_fvec(output)
    }

    /// Feeds mono samples; beats found are appended to `beats`.
    public func feed(_ samples: UnsafeBufferPointer<Float>) {
        var i = 0
        while i < samples.count {
            let take = min(hopSize - pending.count, samples.count - i)
            pending.append(contentsOf: samples[i..<(i + take)])
            i += take
            if pending.count == hopSize { runHop() }
        }
    }

    /// The tempo aubio estimates now, in beats per minute (0 before it has one).
    public var estimatedBPM: Double { Double(aubio_tempo_get_bpm(tempo)) }

    /// aubio's confidence in its tempo estimate.
    public var confidence: Double { Double(aubio_tempo_get_confidence(tempo)) }

    private func runHop() {
        let data = input.pointee.data!
        for j in 0..<hopSize { data[j] = pending[j] }
        pending.removeAll(keepingCapacity: true)
        aubio_tempo_do(tempo, input, output)
        if output.pointee.data[0] != 0 {
            beats.append(Double(aubio_tempo_get_last(tempo)))
        }
    }
}
