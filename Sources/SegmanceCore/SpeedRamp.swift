/// A speed that climbs pass by pass while a loop repeats (`ramp = { from = 70, step = 5,
/// every = 1, to = 100 }`): the first pass at `from`, `step` more after every `every` passes,
/// up to `to`, then it stays there. Each pass plays whole at its speed: the audio side
/// changes it on the loop's seam.
public struct SpeedRamp: Equatable, Hashable, Sendable, CustomStringConvertible {
    public var from: Int
    public var step: Int
    public var every: Int
    public var to: Int

    /// The most passes a step may wait for.
    public static let maxEvery = 16
    /// The ramps the menu offers, after "Off".
    public static let choices: [SpeedRamp] = [
        SpeedRamp(from: 70, step: 5, every: 1, to: 100), SpeedRamp(from: 70, step: 10, every: 1, to: 100),
        SpeedRamp(from: 80, step: 5, every: 1, to: 100), SpeedRamp(from: 50, step: 10, every: 1, to: 100),
        SpeedRamp(from: 70, step: 5, every: 2, to: 100), SpeedRamp(from: 90, step: 5, every: 1, to: 110),
    ]

    public init(from: Int, step: Int, every: Int, to: Int) {
        self.from = from
        self.step = step
        self.every = every
        self.to = to
    }

    /// Why these values make no ramp (speeds on `Rules.speedRange` in steps of
    /// `Rules.speedStep`, `to` above `from`, a step of at least one speed step, `every`
    /// 1...`maxEvery`); nil when they make one.
    public static func problem(from: Int, step: Int, every: Int, to: Int) -> String? {
        let range = Rules.speedRange, grid = Rules.speedStep
        for (name, value) in [("from", from), ("to", to)] where !range.contains(value) || value % grid != 0 {
            return "'\(name)' = \(value) must be a percent from \(range.lowerBound) to \(range.upperBound) "
                + "in steps of \(grid)"
        }
        if to <= from { return "'to' = \(to) must be above 'from' = \(from)" }
        if step < grid || step % grid != 0 { return "'step' = \(step) must be a percent in steps of \(grid)" }
        if !(1...maxEvery).contains(every) { return "'every' = \(every) must be a number of passes, 1 to \(maxEvery)" }
        return nil
    }

    /// The speed of pass `pass` (from 1).
    public func speed(ofPass pass: Int) -> Int {
        let steps = max(0, pass - 1) / max(1, every)
        return min(to, from + step * steps)
    }

    /// As the library keeps it: "from,step,every,to".
    public var description: String { "\(from),\(step),\(every),\(to)" }

    /// Reads the library's form ("70,5,1,100"); nil when it is not a ramp.
    public init?(stored: String) {
        let numbers = stored.split(separator: ",").compactMap { Int($0) }
        guard numbers.count == 4,
              Self.problem(from: numbers[0], step: numbers[1], every: numbers[2], to: numbers[3]) == nil else {
            return nil
        }
        self.init(from: numbers[0], step: numbers[1], every: numbers[2], to: numbers[3])
    }

    /// What the menu shows: "70-100+5", with "/2" when it steps every second pass (at most 10
    /// characters: beside *Ramp* on 16 columns).
    public var shown: String { "\(from)-\(to)+\(step)" + (every == 1 ? "" : "/\(every)") }
}
