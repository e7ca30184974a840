import SHA256Hash
import SegmanceCore

/// A fingerprint of a routine as imported: title, subtitle, countdown, and every part's
/// title, audio (content hash), cut, length, manifest loop, moves and beat grid as imported, and the short
/// names. Importing a routine
/// whose digest is already in the library changes nothing; checking the library recomputes
/// it from the rows to prove a routine is complete.
enum RoutineDigest {
    static func of(_ routine: Routine) -> String {
        var text = "segmance-routine-v1\n"
        func field(_ value: String) {
            // Length-prefixed, so no title can imitate a field boundary.
            text += "\(value.utf8.count):\(value)\n"
        }
        func number(_ value: Int64?) { field(value.map { String($0) } ?? "-") }
        field(routine.title)
        field(routine.subtitle)
        number(routine.countdown.map(Int64.init))
        // Only routines and parts with a short name add a field, so others keep their digest.
        if let short = routine.short { field("short:" + short) }
        number(Int64(routine.parts.count))
        for part in routine.parts {
            field(part.title)
            if let short = part.short { field("short:" + short) }
            field(part.audio.id)
            number(part.range?.lowerBound)
            number(part.range?.upperBound)
            number(part.length)
            number(part.savedLoop?.a)
            number(part.savedLoop?.b)
            number(Int64(part.moves.count))
            for move in part.moves {
                field(move.type.name)
                field(move.name)
                field(move.note)
                number(move.cue)
            }
            if !part.loops.isEmpty {
                // Only parts with named loops add fields, so others keep their digest.
                field("loops")
                number(Int64(part.loops.count))
                for named in part.loops {
                    field(named.name)
                    number(named.loop.a)
                    number(named.loop.b)
                }
            }
            if let grid = part.grid {
                // Only parts with a beat add fields, so routines without keep their digest.
                field("grid")
                field("\(grid.beatFrames)")
                number(grid.one)
                field(grid.origin.rawValue)
            }
            if part.fadeOut > 0 {
                // Only parts that end with a fade add fields, so others keep their digest.
                field("fadeOut")
                number(part.fadeOut)
            }
        }
        return SHA256.hex(Array(text.utf8))
    }
}
