import SegmanceCore
import SegmanceLibrary

extension Appliance {
    /// Whether two saves write the same thing (a later one replaces an earlier that failed).
    static func sameTarget(_ x: Persist, _ y: Persist) -> Bool {
        switch (x, y) {
        case (.resume, .resume), (.settings, .settings): return true
        case (.savedLoop(let r1, let p1, _, _), .savedLoop(let r2, let p2, _, _)),
             (.savedLoop(let r1, let p1, _, _), .stickLoopBack(let r2, let p2, _)),
             (.stickLoopBack(let r1, let p1, _), .savedLoop(let r2, let p2, _, _)),
             (.stickLoopBack(let r1, let p1, _), .stickLoopBack(let r2, let p2, _)),
             (.grid(let r1, let p1, _, _), .grid(let r2, let p2, _, _)),
             (.partSpeed(let r1, let p1, _, _), .partSpeed(let r2, let p2, _, _)),
             (.partPractice(let r1, let p1, _, _, _), .partPractice(let r2, let p2, _, _, _)):
            return r1 == r2 && p1 == p2
        case (.countdownChoice(let r1, _), .countdownChoice(let r2, _)), (.parts(let r1, _), .parts(let r2, _)):
            return r1 == r2
        default: return false
        }
    }

    /// A write to the library as the log says it: parts numbered from 1, settings as the
    /// library stores them (`KEY=VALUE`, the keys of `segmance library settings`).
    static func describe(_ persist: Persist) -> String {
        switch persist {
        case .resume(let p):
            return "resume \"\(p.routine)\" part \(p.part + 1) \"\(p.partTitle)\" frame \(p.position)"
        case .settings(let s):
            return "settings " + Library.settingRows(s).map { "\($0.0)=\($0.1)" }.joined(separator: " ")
        case .savedLoop(let routine, let part, _, let loop):
            let marks = loop.map { "\($0.a)-\($0.b)" } ?? "cleared"
            return "loop \"\(routine)\" part \(part + 1) frames \(marks)"
        case .grid(let routine, let part, _, let grid):
            return "one \"\(routine)\" part \(part + 1) frame \(grid.one)"
                + (grid.origin == .tapped ? " tapped \(grid.beatFrames) frames a beat" : "")
        case .partSpeed(let routine, let part, _, let speed):
            return "speed \"\(routine)\" part \(part + 1) \(speed)%"
        case .partPractice(let routine, let part, _, let leadIn, let ramp):
            return "practice \"\(routine)\" part \(part + 1) lead-in \(leadIn?.description ?? "none") "
                + "ramp \(ramp?.description ?? "none")"
        case .countdownChoice(let routine, let choice):
            return "countdown \"\(routine)\" uses \(choice == .routine ? "the routine's" : "mine")"
        case .stickLoopBack(let routine, let part, _):
            return "loop \"\(routine)\" part \(part + 1) the stick's again"
        case .parts(let routine, let parts):
            let moves = parts.reduce(0) { $0 + $1.moves.count }, loops = parts.reduce(0) { $0 + $1.loops.count }
            return "parts \"\(routine)\" made on the box: \(parts.count) parts, \(moves) moves, \(loops) named loops: "
                + parts.map(describe).joined(separator: "; ")
        case .newRoutine(let title, let songs):
            return "new routine \"\(title)\" of \(songs.count) songs"
        case .classSet(let set):
            return "class set \"\(set.name)\" of \(set.tracks.count) tracks, gap \(set.gap) s"
        }
    }

    /// A part made on the box as its save line gives it, in frames: `"Title" AUDIO cut FROM-TO`
    /// (or `whole LENGTH`), then its loop in force, its named loops and its moves, so that a
    /// reader of the journal knows every value the save wrote (Tests/System/power_log.py).
    static func describe(_ part: Part) -> String {
        func quoted(_ text: String) -> String { String(reflecting: text) }
        var words = [quoted(part.title), part.audio.id]
        words.append(part.range.map { "cut \($0.lowerBound)-\($0.upperBound)" } ?? "whole \(part.length)")
        if let loop = part.savedLoop { words.append("loop \(loop.a)-\(loop.b)") }
        for named in part.loops { words.append("named \(quoted(named.name)) \(named.loop.a)-\(named.loop.b)") }
        for move in part.moves {
            let cue = move.cue.map(String.init) ?? "none"
            words.append("move \(quoted(move.type.name)) \(quoted(move.name)) at \(cue)")
        }
        return words.joined(separator: " ")
    }
}
