import SegmanceCore
import SegmanceLibrary
import SegmanceStick

/// One line an import worker writes on its report pipe: an `ImportEvent`, or the file it is
/// about to decode. Fields are separated by tabs; a tab, a newline or a backslash inside a
/// field is escaped (`\t`, `\n`, `\\`), so any title or reason fits on one line.
public enum ImportReportLine: Equatable, Sendable {
    case event(ImportEvent)
    /// The worker is about to look at this file (relative to the stick).
    case file(String)

    /// The line, with its newline.
    public var text: String {
        let fields: [String]
        switch self {
        case .file(let path): fields = ["file", path]
        case .event(let event):
            switch event {
            case .started(let routines): fields = ["started", String(routines)]
            case .progress(let p): fields = ["progress", String(p.routine), String(p.count), String(p.percent), p.title]
            case .problem(let p): fields = ["problem", p.line.map(String.init) ?? "", p.path, p.reason]
            case .note(let p): fields = ["note", p.line.map(String.init) ?? "", p.path, p.reason]
            case .routine(let title, let outcome): fields = ["routine", outcome.rawValue, title]
            case .routineFailed(let title, let reason): fields = ["failed", title, reason]
            case .finished(let s):
                fields = ["finished", String(s.added), String(s.replaced), String(s.unchanged), String(s.failed),
                          s.stopped.map { "=" + $0 } ?? "", String(s.renamed), String(s.leftOut)]
            }
        }
        return fields.map(Self.escape).joined(separator: "\t") + "\n"
    }

    /// Reads a line (without its newline); nil when it is not one `text` writes.
    public init?(parsing line: Substring) {
        let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(Self.unescape)
        func int(_ i: Int) -> Int? { i < f.count ? Int(f[i]) : nil }
        switch (f.first, f.count) {
        case ("file", 2): self = .file(f[1])
        case ("started", 2):
            guard let n = int(1) else { return nil }
            self = .event(.started(routines: n))
        case ("progress", 5):
            guard let r = int(1), let c = int(2), let p = int(3) else { return nil }
            self = .event(.progress(ImportProgress(routine: r, count: c, title: f[4], percent: p)))
        case ("problem", 4):
            self = .event(.problem(StickProblem(path: f[2], reason: f[3], line: Int(f[1]))))
        case ("note", 4):
            self = .event(.note(StickProblem(path: f[2], reason: f[3], line: Int(f[1]))))
        case ("routine", 3):
            guard let outcome = ImportOutcome(rawValue: f[1]) else { return nil }
            self = .event(.routine(title: f[2], outcome: outcome))
        case ("failed", 3): self = .event(.routineFailed(title: f[1], reason: f[2]))
        case ("finished", 8):
            guard let a = int(1), let r = int(2), let u = int(3), let x = int(4), let n = int(6), let l = int(7)
            else { return nil }
            let stopped = f[5].hasPrefix("=") ? String(f[5].dropFirst()) : nil
            self = .event(.finished(ImportSummary(added: a, replaced: r, unchanged: u, failed: x, renamed: n,
                                                  leftOut: l, stopped: stopped)))
        default: return nil
        }
    }

    // By scalar: "\r\n" is one Character and would slip past a Character switch.
    static func escape(_ field: String) -> String {
        var out = String.UnicodeScalarView()
        for c in field.unicodeScalars {
            switch c {
            case "\\": out += "\\\\".unicodeScalars
            case "\t": out += "\\t".unicodeScalars
            case "\n": out += "\\n".unicodeScalars
            case "\r": out += "\\r".unicodeScalars
            default: out.append(c)
            }
        }
        return String(out)
    }

    static func unescape(_ field: Substring) -> String {
        var out = String.UnicodeScalarView()
        var escaped = false
        for c in field.unicodeScalars {
            if escaped {
                switch c {
                case "t": out.append("\t")
                case "n": out.append("\n")
                case "r": out.append("\r")
                default: out.append(c)
                }
                escaped = false
            } else if c == "\\" {
                escaped = true
            } else {
                out.append(c)
            }
        }
        return String(out)
    }
}
