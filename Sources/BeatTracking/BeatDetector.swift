import Aubio
#if canImport(Glibc)
import Glibc
#endif
import SegmanceCore

/// What beat detection found in a part, and why it kept or refused a grid.
public struct BeatDetection: Equatable, Sendable {
    /// The part's grid (origin `.detected`); nil when the beat is not steady.
    public var grid: BeatGrid?
    /// The straight line through aubio's beats, when there was one.
    public var fit: BeatFit?
    /// Mean onset strength at the grid's beats over that half a beat later: a steady
    /// pulse is far above 1, noise and speech near it.
    public var salience: Double
    /// Why no grid was kept, in words; nil when one was.
    public var refusal: String?
}

/// Finds a part's beat at import: aubio's beat tracker (`BeatTracker`) over the part's
/// sound mixed to mono and averaged down to about 12 kHz (3.3 ms hops), then ONE straight
/// grid fitted through its beat times (`BeatFit`). A grid is kept only when the beats are
/// steady: most of aubio's beats lie on the line, and the sound's onsets are much
/// stronger on the grid's beats than between them. The "1" is the beat of the four whose
/// onsets are strongest (an accented downbeat), the first such in the part.
///
/// At most `maxSeconds` of a part are analysed (its middle, `excerpt`), which bounds the cost of an
/// import; the grid is the one straight line, extended over the whole part. The sound can
/// be given whole (`detect`) or as it comes (`BeatAnalysis`), with the same result.
///
/// The hop (40 samples, 300 a second) keeps aubio's tempo window at 2048 hops: at 375 a
/// second it doubles to 4096, and aubio's autocorrelation of it (quadratic) was most of an
/// import's detection time.
public struct BeatDetector: Sendable {
    /// Frames per second of the PCM given.
    public let sampleRate: Int
    /// The most audio analysed per part, in seconds.
    public var maxSeconds = 30
    /// The fewest beats a grid is fitted through.
    public var minimumBeats = 16
    /// The share of aubio's beats that must lie on the line.
    public var minimumInlierShare = 0.75
    /// Onsets on the beat must be this many times stronger than between beats.
    public var minimumSalience = 2.0
    /// An inlier lies this close to the line, in seconds.
    public var tolerance = 0.030
    /// Tempi a grid may have, beats a minute.
    public var tempoRange: ClosedRange<Double> = 40...240

    /// The rate the sound is analysed at, about: this many frames a second are averaged
    /// into one mono sample (48 kHz: 4 frames).
    public var analysisRate = 12_000
    /// Analysis samples per aubio hop (its window is four hops).
    public var hop = 40

    /// Averaging this many frames makes the analysis rate (48 kHz: 4, 12 kHz).
    var decimation: Int { max(1, Int((Double(sampleRate) / Double(analysisRate)).rounded())) }
    /// Analysis samples per onset-energy frame (10 ms at the nominal analysis rate).
    var energyFrame: Int { max(1, analysisRate / 100) }

    public init(sampleRate: Int) {
        self.sampleRate = sampleRate
    }

    /// The frames of a part of `frames` frames that are analysed: all of it, or its middle
    /// `maxSeconds`, starting on the whole second at or before the middle's start. Whole
    /// seconds make the excerpt of a length known only to some frames before a file is
    /// decoded (`BeatAnalysis` as it decodes) the excerpt of the length decoded.
    public func excerpt(ofFrames frames: Int) -> Range<Int> {
        let limit = maxSeconds * sampleRate
        let start = frames > limit ? (frames - limit) / 2 / sampleRate * sampleRate : 0
        return start..<(start + min(frames, limit))
    }

    /// Detects the beat of `frames` interleaved stereo 16-bit frames at `sampleRate`.
    public func detect(stereo pcm: UnsafePointer<Int16>, frames: Int) throws(AubioError) -> BeatDetection {
        let excerpt = excerpt(ofFrames: frames)
        let analysis = try BeatAnalysis(self, start: excerpt.lowerBound)
        analysis.feed(UnsafeBufferPointer(start: pcm + excerpt.lowerBound * 2, count: excerpt.count * 2))
        return analysis.finish()
    }

    /// The detection from aubio's `beats` and the onset `flux` of an analysis that began at
    /// part frame `start` (both counted in analysis samples from there).
    func conclude(beats: [Double], flux: [Float], start: Int) -> BeatDetection {
        let d = decimation
        let rate = sampleRate / d
        func refuse(_ reason: String, _ fit: BeatFit? = nil, _ salience: Double = 0) -> BeatDetection {
            BeatDetection(grid: nil, fit: fit, salience: salience, refusal: reason)
        }
        guard beats.count >= minimumBeats else {
            return refuse("\(beats.count) beats found, fewer than \(minimumBeats)")
        }
        guard let fit = BeatFit.fit(beats, tolerance: tolerance * Double(rate)) else {
            return refuse("no straight line through the beats")
        }
        let bpm = 60 * Double(rate) / fit.period
        let share = Double(fit.inliers) / Double(fit.beats)
        let frame = Double(energyFrame)
        let salience = Self.salience(flux, period: fit.period, origin: fit.origin, energyFrame: frame)
        guard share >= minimumInlierShare else {
            return refuse("beats not steady: \(fit.inliers) of \(fit.beats) on one grid", fit, salience)
        }
        guard tempoRange.contains(bpm) else {
            let range = "\(Int(tempoRange.lowerBound))–\(Int(tempoRange.upperBound))"
            return refuse("tempo \(Int(bpm.rounded())) outside \(range)", fit, salience)
        }
        guard salience >= minimumSalience else {
            return refuse("no pulse: onsets on the beat \(Self.format(salience))× those between", fit, salience)
        }
        // Part frames: the analysis counts from `start`, `d` frames a sample.
        let period = fit.period * Double(d)
        let downbeat = Self.strongestOfFour(flux, period: fit.period, origin: fit.origin, energyFrame: frame)
        var one = Double(start) + (fit.origin + fit.period * Double(downbeat)) * Double(d)
        // The first such "1" at or after the part's start (four beats apart, as accented).
        let bar = 4 * period
        one -= (one / bar).rounded(.down) * bar
        let grid = BeatGrid(beatFrames: period, one: FramePosition(one.rounded()), origin: .detected)
        return BeatDetection(grid: grid, fit: fit, salience: salience, refusal: nil)
    }

    /// The strongest flux within two energy frames of analysis sample `at`.
    static func peak(_ flux: [Float], at sample: Double, energyFrame: Double) -> Float? {
        let h = Int((sample / energyFrame).rounded())
        guard h - 2 >= 0, h + 2 < flux.count else { return nil }
        return flux[(h - 2)...(h + 2)].max()
    }

    /// Mean flux at the grid's beats over that half a beat later.
    static func salience(_ flux: [Float], period: Double, origin: Double, energyFrame: Double) -> Double {
        var on = 0.0, off = 0.0
        var k = (-origin / period).rounded(.up)
        while true {
            let beat = origin + period * k
            guard let a = peak(flux, at: beat, energyFrame: energyFrame),
                  let b = peak(flux, at: beat + period / 2, energyFrame: energyFrame) else {
                if beat < 0 || (beat / energyFrame) < 3 { k += 1; continue }
                break
            }
            on += Double(a)
            off += Double(b)
            k += 1
        }
        return off > 0 ? on / off : (on > 0 ? .infinity : 0)
    }

    /// Which of beats 0, 1, 2, 3 (mod 4) of the line has the strongest onsets.
    static func strongestOfFour(_ flux: [Float], period: Double, origin: Double, energyFrame: Double) -> Int {
        var sums = [Double](repeating: 0, count: 4)
        var k = Int((-origin / period).rounded(.up))
        while true {
            let beat = origin + period * Double(k)
            guard let a = peak(flux, at: beat, energyFrame: energyFrame) else {
                if beat / energyFrame < 3 { k += 1; continue }
                break
            }
            sums[((k % 4) + 4) % 4] += Double(a)
            k += 1
        }
        return sums.indices.max { sums[$0] < sums[$1] } ?? 0
    }

    static func format(_ value: Double) -> String {
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}
