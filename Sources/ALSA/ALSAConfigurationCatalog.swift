import CALSA

/// What ALSA offers on this machine: PCM names from the configuration and the sound cards.
/// Used by `segmance devices`.
public enum ALSAConfigurationCatalog {
    /// One PCM the configuration names (`snd_device_name_hint`).
    public struct PCMHint: Equatable, Hashable, Sendable {
        /// The name to open, e.g. `null`, `default`, `hw:CARD=Headphones,DEV=0`.
        public var name: String
        /// The configuration's description, lines joined with " — "; nil when it has none.
        public var description: String?
        /// `Input` or `Output` when the PCM goes one way only; nil for both.
        public var direction: String?
    }

    /// A sound card (`snd_card_next`, `snd_card_get_name`, `snd_card_get_longname`).
    public struct Card: Equatable, Hashable, Sendable {
        /// The card index, as in `hw:0`.
        public var index: Int
        /// Short name, e.g. `bcm2835 Headphones`.
        public var name: String
        /// Long name, e.g. `bcm2835 Headphones at ...`.
        public var longName: String
    }

    /// The PCMs the ALSA configuration lists, for all cards (`snd_device_name_hint(-1, "pcm", …)`).
    public static func pcmHints() throws(ALSAError) -> [PCMHint] {
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        let result = snd_device_name_hint(-1, "pcm", &hints)
        guard result >= 0, let hints else {
            throw ALSAError(function: "snd_device_name_hint", pcm: "pcm", result: result < 0 ? result : -ENOENT)
        }
        defer { snd_device_name_free_hint(hints) }
        var list: [PCMHint] = []
        var cursor = hints
        while let hint = cursor.pointee {
            if let name = take(snd_device_name_get_hint(hint, "NAME")) {
                let description = take(snd_device_name_get_hint(hint, "DESC"))?
                    .split(separator: "\n").joined(separator: " — ")
                list.append(PCMHint(name: name, description: description,
                                    direction: take(snd_device_name_get_hint(hint, "IOID"))))
            }
            cursor += 1
        }
        return list
    }

    /// The sound cards present; empty on a machine with none.
    public static func cards() throws(ALSAError) -> [Card] {
        var cards: [Card] = []
        var index: Int32 = -1
        while true {
            let result = snd_card_next(&index)
            if result < 0 { throw ALSAError(function: "snd_card_next", pcm: "card \(index)", result: result) }
            if index < 0 { break }
            var name: UnsafeMutablePointer<CChar>?
            var longName: UnsafeMutablePointer<CChar>?
            let nameResult = snd_card_get_name(index, &name)
            if nameResult < 0 {
                throw ALSAError(function: "snd_card_get_name", pcm: "card \(index)", result: nameResult)
            }
            let shortName = take(name) ?? "card \(index)"
            let longResult = snd_card_get_longname(index, &longName)
            let long = longResult < 0 ? shortName : take(longName) ?? shortName
            cards.append(Card(index: Int(index), name: shortName, longName: long))
        }
        return cards
    }

    /// Copies and frees a string alsa-lib allocated for the caller.
    private static func take(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
        guard let pointer else { return nil }
        defer { free(pointer) }
        return String(cString: pointer)
    }
}
