import Foundation
import SegmanceCore
import SegmanceStick

/// Routines and problems as JSON and as text, for `stick check` and `library show/list`.
/// Times are seconds (3 decimals) and frames at the output rate.
struct RoutineReport: Codable {
    struct PartReport: Codable {
        var title: String
        /// The stick file (stick check) or the media hash (library).
        var audio: String
        var seconds: Double
        var frames: Int64
        var from: Double?
        var to: Double?
        var loop: LoopReport?
        /// The stick's loop when the box hid it (`loop` nil) or set another: it can come back.
        var stickLoop: LoopReport?
        var moves: [MoveReport]
        /// The part's named loops (from the box or the stick), in seconds and in frames.
        var loops: [NamedLoopReport]
        /// The practice speed the part starts at, percent.
        var speed: Int
        /// The part's beat: tempo, where a "1" falls, and where the grid came from.
        var beat: BeatReport?
    }

    struct BeatReport: Codable {
        /// Beats a minute (2 decimals).
        var tempo: Double
        /// Seconds of a "1", part-relative.
        var one: Double
        /// manifest, detected or performer.
        var origin: String
    }

    struct LoopReport: Codable {
        var a: Double
        var b: Double
    }

    struct NamedLoopReport: Codable {
        var name: String
        var a: Double
        var b: Double
        var aFrame: Int64
        var bFrame: Int64
    }

    struct MoveReport: Codable {
        var type: String
        var name: String
        var note: String
        var at: Double?
    }

    var title: String
    var subtitle: String
    var countdown: Int?
    /// "mine" when the teacher chose their count-in over the routine's `countdown` on the box.
    var countdownChoice: String?
    var source: String?
    var seconds: Double
    var parts: [PartReport]

    init(_ routine: Routine, source: String?, rate: Int) {
        func seconds(_ frames: Int64) -> Double { (Double(frames) / Double(rate) * 1000).rounded() / 1000 }
        title = routine.title
        subtitle = routine.subtitle
        countdown = routine.countdown
        countdownChoice = routine.countdown != nil && routine.countdownChoice == .mine ? "mine" : nil
        self.source = source
        self.seconds = seconds(routine.parts.reduce(0) { $0 + $1.length })
        parts = routine.parts.map { part in
            PartReport(title: part.title, audio: part.audio.id, seconds: seconds(part.length), frames: part.length,
                       from: part.range.map { seconds($0.lowerBound) }, to: part.range.map { seconds($0.upperBound) },
                       loop: part.savedLoop.map { LoopReport(a: seconds($0.a), b: seconds($0.b)) },
                       stickLoop: part.stickLoop == part.savedLoop ? nil
                           : part.stickLoop.map { LoopReport(a: seconds($0.a), b: seconds($0.b)) },
                       moves: part.moves.map { MoveReport(type: $0.type.name, name: $0.name, note: $0.note,
                                                          at: $0.cue.map(seconds)) },
                       loops: part.loops.map {
                           NamedLoopReport(name: $0.name, a: seconds($0.loop.a), b: seconds($0.loop.b),
                                           aFrame: $0.loop.a, bFrame: $0.loop.b)
                       },
                       speed: part.speed,
                       beat: part.grid.map { BeatReport(tempo: ($0.bpm(sampleRate: Int64(rate)) * 100).rounded() / 100,
                                                        one: seconds($0.one), origin: $0.origin.rawValue) })
        }
    }

    /// Indented lines describing the routine.
    func lines(rate: Int, markPart: Int? = nil, markText: String = "") -> [String] {
        func time(_ s: Double) -> String { ManifestTime.format(Int64((s * Double(rate)).rounded()), rate: rate) }
        var head = title
        if !subtitle.isEmpty { head += " — \(subtitle)" }
        var facts = ["\(parts.count) part\(parts.count == 1 ? "" : "s")", time(seconds)]
        if let countdown {
            facts.append(
                "countdown \(countdown) s" + (countdownChoice == "mine" ? " (the teacher's used instead)" : ""))
        }
        if let source { facts.append("from \(source)") }
        var out = ["\(head)  (\(facts.joined(separator: ", ")))"]
        for (i, part) in parts.enumerated() {
            var line = "  \(i + 1). \(part.title)  \(time(part.seconds))  \(part.audio)"
            if let from = part.from, let to = part.to { line += "  cut \(time(from))–\(time(to))" }
            if let loop = part.loop { line += "  loop \(time(loop.a))–\(time(loop.b))" }
            if let stick = part.stickLoop {
                let span = "\(time(stick.a))–\(time(stick.b))"
                line += part.loop == nil ? "  loop \(span) (the stick's, hidden on the box)"
                    : " (set on the box; the stick's: \(span))"
            }
            if let beat = part.beat {
                // To the millisecond: a beat is a few hundred.
                let ms = Int((abs(beat.one) * 1000).rounded())
                let one =
                    (beat.one < 0 ? "-" : "") + String(format: "%d:%02d.%03d", ms / 60_000, ms / 1000 % 60, ms % 1000)
                line += "  tempo \(String(format: "%.2f", beat.tempo)) BPM, one at \(one) (\(beat.origin))"
            }
            if markPart == i { line += "  \(markText)" }
            out.append(line)
            for named in part.loops {
                out.append("       loop \(named.name): \(time(named.a))–\(time(named.b))"
                           + "  (frames \(named.aFrame)–\(named.bFrame))")
            }
            for move in part.moves {
                let cue = move.at.map { "@\(time($0)) " } ?? ""
                let note = move.note.isEmpty ? "" : " (\(move.note))"
                out.append("       \(cue)\(move.type.isEmpty ? "" : move.type + ": ")\(move.name)\(note)")
            }
        }
        return out
    }
}

struct ProblemReport: Codable {
    var path: String
    var line: Int?
    var reason: String

    init(_ problem: StickProblem) {
        path = problem.path
        line = problem.line
        reason = problem.reason
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    Console.out(String(decoding: try encoder.encode(value), as: UTF8.self) + "\n")
}
