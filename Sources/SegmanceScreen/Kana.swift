/// Japanese kana as half-width katakana, the form the HD44780's A00 ROM has: hiragana
/// and katakana alike, a voiced kana as its base and the separate mark (ボ → ﾎﾞ).
enum Kana {
    /// The half-width katakana (one or two scalars) for `scalar`, or nil when it is not kana.
    static func halfWidth(_ scalar: Unicode.Scalar) -> [Unicode.Scalar]? {
        var v = scalar.value
        // Hiragana sit 0x60 below the katakana of the same sound.
        if (0x3041...0x3096).contains(v) { v += 0x60 }
        if let plain = table[v] { return [plain] }
        if voiced.contains(v), let base = table[v - 1] { return [base, dakuten] }
        if semiVoiced.contains(v), let base = table[v - 2] { return [base, handakuten] }
        if v == 0x30F4 { return [table[0x30A6]!, dakuten] } // ヴ: ウ and ゛
        if (0xFF61...0xFF9F).contains(v) { return [scalar] }
        return nil
    }

    static let dakuten: Unicode.Scalar = "\u{FF9E}"
    static let handakuten: Unicode.Scalar = "\u{FF9F}"

    /// Full-width katakana and punctuation to their half-width forms.
    private static let table: [UInt32: Unicode.Scalar] = {
        let full = "。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜"
        let half = "｡｢｣､･ｦｧｨｩｪｫｬｭｮｯｰｱｲｳｴｵｶｷｸｹｺｻｼｽｾｿﾀﾁﾂﾃﾄﾅﾆﾇﾈﾉﾊﾋﾌﾍﾎﾏﾐﾑﾒﾓﾔﾕﾖﾗﾘﾙﾚﾛﾜﾝﾞﾟ"
        var table: [UInt32: Unicode.Scalar] = [:]
        for (f, h) in zip(full.unicodeScalars, half.unicodeScalars) { table[f.value] = h }
        // The voiced marks as combining characters, and the small kana the ROM lacks.
        table[0x3099] = dakuten
        table[0x309A] = handakuten
        table[0x30EE] = "ﾜ"
        table[0x30F5] = "ｶ"
        table[0x30F6] = "ｹ"
        return table
    }()

    /// ガ…ド and バ…ボ: one above their base; パ…ポ two above.
    private static let voiced: Set<UInt32> = Set("ガギグゲゴザジズゼゾダヂヅデドバビブベボ".unicodeScalars.map(\.value))
    private static let semiVoiced: Set<UInt32> = Set("パピプペポ".unicodeScalars.map(\.value))
}
