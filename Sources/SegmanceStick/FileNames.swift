import Foundation

/// File-name rules of the stick: natural order, part titles, debris.
public enum FileNames {
    /// Natural ordering: digit runs compare by value ("2 x" < "10 x"), other characters
    /// case-insensitively; ties are broken by the exact name so the order is total.
    public static func naturalLess(_ lhs: String, _ rhs: String) -> Bool {
        let a = Array(lhs.lowercased()), b = Array(rhs.lowercased())
        var i = 0, j = 0
        while i < a.count && j < b.count {
            if a[i].isASCIIDigitChar && b[j].isASCIIDigitChar {
                let m = digitRun(a, from: i), n = digitRun(b, from: j)
                // Compare by value without overflow: strip zeros, then length, then digits.
                let mv = a[m].drop { $0 == "0" }, nv = b[n].drop { $0 == "0" }
                if mv.count != nv.count { return mv.count < nv.count }
                if !mv.elementsEqual(nv) { return mv.lexicographicallyPrecedes(nv) }
                // Same value: more zero padding first ("01" before "1").
                if m.count != n.count { return m.count > n.count }
                i = m.upperBound
                j = n.upperBound
            } else {
                if a[i] != b[j] { return a[i] < b[j] }
                i += 1
                j += 1
            }
        }
        if a.count - i != b.count - j { return a.count - i < b.count - j }
        return lhs < rhs
    }

    private static func digitRun(_ chars: [Character], from start: Int) -> Range<Int> {
        var end = start
        while end < chars.count && chars[end].isASCIIDigitChar { end += 1 }
        return start..<end
    }

    /// The part title for a file name: no extension, no leading track number and its
    /// separator ("01 ", "01-", "01_", "1. ", "01 - "), underscores read as spaces.
    /// A name that is only a number keeps it ("01.wav" -> "01").
    public static func partTitle(_ fileName: String) -> String {
        var base = Substring(fileName)
        if let dot = base.lastIndex(of: "."), dot != base.startIndex { base = base[..<dot] }
        let digits = base.prefix { $0.isASCIIDigitChar }
        var rest = base.dropFirst(digits.count)
        if !digits.isEmpty {
            let separators: Set<Character> = [" ", "-", "_", ".", ")"]
            let afterSeparators = rest.drop { separators.contains($0) }
            // Only strip the number when a separator follows it ("01 Intro"), so
            // "5 Rhythms" keeps working as a title only if something remains.
            if afterSeparators.count < rest.count, !afterSeparators.isEmpty {
                rest = afterSeparators
            } else {
                rest = base
            }
        }
        let title = rest.replacingOccurrences(of: "_", with: " ").trimmingCharacters(in: .whitespaces)
        return title.isEmpty ? String(base) : title
    }

    /// Names Macs, Windows and editors leave on sticks: skipped without a word.
    public static func isDebris(_ name: String) -> Bool {
        if name.hasPrefix(".") { return true }  // ._AppleDouble, .DS_Store, .Trashes, .fseventsd, …
        let windows: Set<String> = ["System Volume Information", "$RECYCLE.BIN", "RECYCLER",
                                    "Thumbs.db", "desktop.ini", "ehthumbs.db"]
        return windows.contains(name) || name.hasPrefix("~$")
    }
}
