import CAubio

/// aubio's beat tracker (`aubio_tempo_t`, its default method) over a mono signal fed in
/// hops. Owns the tracker and its two vectors, deleted in `deinit`. Not thread-safe.
/// The first tracker opens libaubio (`AubioLibrary`); a missing library is a thrown error.
public final class BeatTracker {
    public let sampleRate: Int
    public let hopSize: Int
    public let windowSize: Int
    private let aubio: AubioLibrary
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
        let aubio = try AubioLibrary.shared.get()
        AubioLog.reset()
        guard let tempo = aubio.newTempo("default", UInt32(windowSize), UInt32(hopSize), UInt32(sampleRate)) else {
            throw AubioError(function: "new_aubio_tempo", message: AubioLog.message(or: "no tracker returned"))
        }
        guard let input = aubio.newVector(UInt32(hopSize)), let output = aubio.newVector(2) else {
            aubio.deleteTempo(tempo)
            throw AubioError(function: "new_fvec", message: AubioLog.message(or: "no vector returned"))
        }
        self.aubio = aubio
        self.tempo = tempo
        self.input = input
        self.output = output
        self.sampleRate = sampleRate
        self.hopSize = hopSize
        self.windowSize = windowSize
        pending.reserveCapacity(hopSize)
    }

    deinit {
        aubio.deleteTempo(tempo)
        aubio.deleteVector(input)
        aubio.deleteVector(output)
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
    public var estimatedBPM: Double { Double(aubio.tempoBPM(tempo)) }

    /// aubio's confidence in its tempo estimate.
    public var confidence: Double { Double(aubio.tempoConfidence(tempo)) }

    private func runHop() {
        let data = input.pointee.data!
        for j in 0..<hopSize { data[j] = pending[j] }
        pending.removeAll(keepingCapacity: true)
        aubio.tempoDo(tempo, input, output)
        if output.pointee.data[0] != 0 {
            beats.append(Double(aubio.tempoLast(tempo)))
        }
    }
}
