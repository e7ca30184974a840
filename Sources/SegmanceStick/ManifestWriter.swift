import SegmanceCore
import TOML

/// Writes a routine as a `routine.toml` that `Manifest` reads back to the same routine:
/// titles, cuts, the loop in force, named loops, moves, tempo and "1", speed. Times are
/// "m:ss" with as many decimals as the frame needs, so every frame comes back exactly.
public enum ManifestWriter {
    /// The manifest of `routine` at `rate`; `files` names each part's audio file, relative
    /// to the routine folder.
    public static func text(_ routine: Routine, files: [AudioReference: String], rate: Int) -> String {
        var out = ["# Written by Segmance Box. Edit it in any text editor; docs/stick.md explains every key."]
        out.append("title = \(quote(routine.title))")
        if !routine.subtitle.isEmpty { out.append("subtitle = \(quote(routine.subtitle))") }
        if let short = routine.short { out.append("short = \(quote(short))") }
        if let countdown = routine.countdown { out.append("countdown = \(countdown)") }
        for part in routine.parts {
            out.append("")
            out.append("[[part]]")
            out.append("title = \(quote(part.title))")
            if let short = part.short { out.append("short = \(quote(short))") }
            out.append("file = \(quote(files[part.audio] ?? part.audio.id))")
            if let range = part.range {
                out.append("from = \(quote(time(range.lowerBound, rate: rate)))")
                out.append("to = \(quote(time(range.upperBound, rate: rate)))")
            }
            if let loop = part.savedLoop { out.append("loop = \(loopText(loop, rate: rate))") }
            if !part.loops.isEmpty {
                out.append("loops = [")
                for named in part.loops {
                    out.append("  { name = \(quote(named.name)), \(loopFields(named.loop, rate: rate)) },")
                }
                out.append("]")
            }
            if let grid = part.grid, Manifest.tempoRange.contains(grid.bpm(sampleRate: Int64(rate))) {
                out.append("tempo = \(grid.bpm(sampleRate: Int64(rate)))")
                out.append("one = \(quote(time(grid.one, rate: rate)))")
            }
            if part.speed != 100 { out.append("speed = \(part.speed)") }
            if let leadIn = part.leadIn { out.append("lead_in = \(quote(leadIn.description))") }
            if let r = part.ramp {
                out.append("ramp = { from = \(r.from), step = \(r.step), every = \(r.every), to = \(r.to) }")
            }
            if part.fadeOut > 0 { out.append("fade_out = \(quote(fadeText(part.fadeOut, rate: rate)))") }
            if !part.moves.isEmpty {
                out.append("moves = [")
                for move in part.moves {
                    var fields: [String] = []
                    if !move.type.name.isEmpty { fields.append("type = \(quote(move.type.name))") }
                    fields.append("name = \(quote(move.name))")
                    if !move.note.isEmpty { fields.append("note = \(quote(move.note))") }
                    if let cue = move.cue { fields.append("at = \(quote(time(cue, rate: rate)))") }
                    out.append("  { \(fields.joined(separator: ", ")) },")
                }
                out.append("]")
            }
        }
        return out.joined(separator: "\n") + "\n"
    }

    /// A starter `routine.toml` for a folder of songs: one part per song in `files` (names
    /// in the folder), every key shown, those not needed yet commented out with what they do.
    public static func starter(title: String, files: [String]) -> String {
        var out = """
            # routine.toml: how this folder plays on Segmance Box. Lines starting with # are notes
            # the box ignores: remove the # in front of a line to use it. Times are "minutes:seconds"
            # ("0:30", "1:02.5") or seconds (30, 30.5). docs/stick.md explains every key.

            title = \(quote(title))
            # subtitle = "Spring show"      # a second line under the title
            # short = "SHOW"                # the name shown where the display cannot show the title
            # countdown = 5                 # seconds counted in before the music: 0, 3, 5, 8, 10, 15 or 20

            """
        for file in files {
            out += """

                [[part]]
                title = \(quote(FileNames.partTitle(file)))
                file = \(quote(file))
                # from = "0:00"                  # where the part starts in the song
                # to = "1:00"                    # where it ends (leave both out for the whole song)
                # loop = { a = "0:10", b = "0:20" }          # the loop in force (times from the part's start)
                # loops = [{ name = "Hit", a = "0:08", b = "0:16" }]   # more loops, each with a name
                # moves = ["Roll down", "Spin"]  # or { name = "Spin", type = "Dance", note = "", at = "0:12" }
                # tempo = 120                    # beats a minute
                # one = "0:00.5"                 # where a "1" falls (with tempo)
                # speed = 100                    # practice speed in percent, 50 to 150 in steps of 5
                # lead_in = "2 beats"            # each pass of the loop after the first starts this far before A
                # ramp = { from = 70, step = 5, every = 1, to = 100 }   # the loop's speed climbs pass by pass
                # short = "INTRO"                # the name shown where the display cannot show the title

                """
        }
        return out
    }

    /// `frames` as "m:ss" with the decimals it needs ("1:05.5", "0:00.000020833"); nine
    /// decimals bring every frame at up to 1 GHz back exactly. Negative for a pickup "1".
    /// A fade as `fade_out` reads it back: seconds and their unit ("2 s", "1.5 s").
    static func fadeText(_ frames: Int64, rate: Int) -> String {
        // `time` writes "m:ss" and a fraction: the minutes go into the seconds.
        let fields = time(max(0, frames), rate: rate).split(separator: ":")
        let seconds = (Int(fields[0]) ?? 0) * 60 + (Int(fields[1].prefix(2)) ?? 0)
        return "\(seconds)\(fields[1].dropFirst(2)) s"
    }

    public static func time(_ frames: Int64, rate: Int) -> String {
        let sign = frames < 0 ? "-" : ""
        let magnitude = frames.magnitude
        let rate64 = UInt64(rate)
        let seconds = magnitude / rate64
        let rest = magnitude % rate64
        var nanos = (rest * 1_000_000_000 * 2 + rate64) / (rate64 * 2)
        var whole = seconds
        if nanos == 1_000_000_000 {
            whole += 1
            nanos = 0
        }
        let s = whole % 60
        var text = "\(sign)\(whole / 60):\(s < 10 ? "0" : "")\(s)"
        if nanos > 0 {
            var digits = String(nanos)
            digits = String(repeating: "0", count: 9 - digits.count) + digits
            while digits.hasSuffix("0") { digits.removeLast() }
            text += "." + digits
        }
        return text
    }

    /// A TOML basic string (TOML's own escaping).
    public static func quote(_ text: String) -> String { TOMLValue.quoted(text) }

    private static func loopFields(_ loop: ABLoop, rate: Int) -> String {
        "a = \(quote(time(loop.a, rate: rate))), b = \(quote(time(loop.b, rate: rate)))"
    }

    private static func loopText(_ loop: ABLoop, rate: Int) -> String { "{ \(loopFields(loop, rate: rate)) }" }
}
