/// Percentiles of measured values, nearest rank: the smallest value with at least p % of
/// the values at or below it.
public enum Percentile {
    public static func of(_ values: [Double], _ percent: Double) -> Double? {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(sorted.count, max(1, rank)) - 1]
    }
}
