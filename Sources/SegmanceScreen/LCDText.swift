/// Turns text into bytes a character LCD can show: ASCII only (the HD44780's ROM varies
/// beyond it), accented Latin letters folded to their base letter.
public enum LCDText {
    /// `text` as display bytes; anything that cannot be folded becomes "?".
    public static func bytes(_ text: String) -> [UInt8] {
        // Most text is printable ASCII already (the clock, the place in the eights, most
        // titles): one copy, where folding scalar by scalar grew the array byte by byte.
        if isPlain(text) { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            let v = scalar.value
            if v >= 0x20 && v < 0x7F {
                out.append(UInt8(v))
            } else if let folded = fold[scalar] {
                out += Array(folded.utf8)
            } else if v == 0x09 || v == 0x0A {
                out.append(0x20)
            } else {
                out.append(UInt8(ascii: "?"))
            }
        }
        return out
    }

    /// How many cells `text` takes: `bytes(text).count`, without making them for plain text.
    public static func width(_ text: String) -> Int {
        isPlain(text) ? text.utf8.count : bytes(text).count
    }

    /// Whether `text` is printable ASCII only: its UTF-8 is its display bytes.
    public static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    private static let fold: [Unicode.Scalar: String] = {
        var table: [Unicode.Scalar: String] = [:]
        let groups: [(String, String)] = [
            ("ÀÁÂÃÄÅĀĂĄ", "A"), ("àáâãäåāăą", "a"), ("ÇĆČ", "C"), ("çćč", "c"), ("ĎĐ", "D"), ("ďđ", "d"),
            ("ÈÉÊËĒĖĘĚ", "E"), ("èéêëēėęě", "e"), ("ÌÍÎÏĪĮİ", "I"), ("ìíîïīįı", "i"), ("ŁĹĽ", "L"),
            ("łĺľ", "l"), ("ÑŃŇ", "N"), ("ñńň", "n"), ("ÒÓÔÕÖØŌŐ", "O"), ("òóôõöøōő", "o"), ("ŔŘ", "R"),
            ("ŕř", "r"), ("ŚŠŞ", "S"), ("śšş", "s"), ("ŤŢ", "T"), ("ťţ", "t"), ("ÙÚÛÜŪŮŰŲ", "U"),
            ("ùúûüūůűų", "u"), ("ÝŸ", "Y"), ("ýÿ", "y"), ("ŹŻŽ", "Z"), ("źżž", "z"),
            ("‘’‚′", "'"), ("“”„″", "\""), ("–—‐‑−", "-"), ("«‹", "<"), ("»›", ">"), ("\u{00A0}", " "),
        ]
        for (letters, base) in groups {
            for s in letters.unicodeScalars { table[s] = base }
        }
        table["ß"] = "ss"; table["Æ"] = "AE"; table["æ"] = "ae"; table["Œ"] = "OE"; table["œ"] = "oe"
        table["…"] = "..."; table["×"] = "x"; table["·"] = "-"; table["•"] = "*"
        return table
    }()
}
