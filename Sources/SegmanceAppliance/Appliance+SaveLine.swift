import SegmanceCore
import SegmanceLibrary

extension Appliance {
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
        case .partSpeed(let routine, let part, _, let speed):
            return "speed \"\(routine)\" part \(part + 1) \(speed)%"
        }
    }
}
