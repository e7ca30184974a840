/// Turns text into the bytes a character LCD shows: printable ASCII as it is, accented
/// Latin letters folded to their base letter, full-width forms to ASCII, and on an A00 ROM
/// kana as the ROM's half-width katakana (`Kana`). The ROM beyond ASCII varies, so nothing
/// else is guessed.
public enum LCDText {
    /// `text` as display bytes for `rom`; anything it cannot show becomes "?".
    public static func bytes(_ text: String, rom: CharacterROM = .ascii) -> [UInt8] {
        // Most text is printable ASCII already (the clock, the place in the eights, most
        // titles): one copy, where folding scalar by scalar grew the array byte by byte.
        if isPlain(text) { return Array(text.utf8) }
        var out: [UInt8] = []
        for scalar in text.unicodeScalars {
            out += shown(scalar, rom: rom) ?? [UInt8(ascii: "?")]
        }
        return out
    }

    /// Whether `rom` shows every character of `text` (folded or transliterated), none as "?".
    public static func canShow(_ text: String, rom: CharacterROM = .ascii) -> Bool {
        isPlain(text) || text.unicodeScalars.allSatisfy { shown($0, rom: rom) != nil }
    }

    /// How many cells `text` takes: `bytes(text).count`, without making them for plain text.
    public static func width(_ text: String, rom: CharacterROM = .ascii) -> Int {
        isPlain(text) ? text.utf8.count : bytes(text, rom: rom).count
    }

    /// Whether `text` is printable ASCII only: its UTF-8 is its display bytes.
    public static func isPlain(_ text: String) -> Bool {
        text.utf8.allSatisfy { $0 >= 0x20 && $0 < 0x7F }
    }

    /// The bytes `rom` shows `scalar` with, or nil when it has nothing for it.
    private static func shown(_ scalar: Unicode.Scalar, rom: CharacterROM) -> [UInt8]? {
        let v = scalar.value
        if v >= 0x20 && v < 0x7F { return [UInt8(v)] }
        if let folded = fold[scalar] { return Array(folded.utf8) }
        if v == 0x09 || v == 0x0A || v == 0x3000 { return [0x20] }
        // Full-width ASCII (Ａ, １, ！) is 0xFEE0 above its ASCII letter.
        if (0xFF01...0xFF5E).contains(v) { return [UInt8(v - 0xFEE0)] }
        if rom == .a00, let kana = Kana.halfWidth(scalar) {
            let codes = kana.compactMap(rom.code(ofHalfWidth:))
            return codes.count == kana.count ? codes : nil
        }
        return nil
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
