/// "did you mean 'title'?" for a key a person mistyped: the known key nearest by edit
/// distance (a swap of two letters counts as one edit), when it is near enough.
enum KeySuggestion {
    /// The known key `key` was probably meant to be, or nil when none is close.
    static func nearest(_ key: String, in known: Set<String>) -> String? {
        let typed = Array(key.lowercased())
        // One slip in a short word, two in a longer one; never more than a third of it.
        let allowed = typed.count <= 4 ? 1 : 2
        var best: (key: String, distance: Int)?
        for candidate in known.sorted() {
            let distance = Self.distance(typed, Array(candidate))
            if distance <= allowed, distance < (best?.distance ?? Int.max) { best = (candidate, distance) }
        }
        return best?.key
    }

    /// The message for an unknown `key` found in `place` ("" for the top level, " in part 1").
    static func unknown(_ key: String, in place: String, known: Set<String>) -> String {
        let list = known.sorted().joined(separator: ", ")
        let hint = nearest(key, in: known).map { ": did you mean '\($0)'?" } ?? ""
        return "unknown key '\(key.clipped)'\(place)\(hint) (known: \(list))"
    }

    /// Optimal string alignment distance: insertions, deletions, substitutions and swaps of
    /// neighbours. Keys are short; a long one is cut, it is far from every known key anyway.
    static func distance(_ a: [Character], _ b: [Character]) -> Int {
        let a = Array(a.prefix(64)), b = Array(b.prefix(64))
        if a.isEmpty || b.isEmpty { return max(a.count, b.count) }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    current[j] = min(current[j], before[j - 2] + 1)
                }
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }
}
