import SegmanceCore
@testable import SegmanceLibrary
import SegmanceStick
@testable import StickTransfer
import Testing

/// The import worker's report lines: every event comes back as it went, whatever its
/// titles and reasons hold (tabs, newlines, backslashes, "\r\n"); anything else is no line.
@Suite(.tags(.unit)) struct ImportReportLineTests {
    static let odd = "Salsa\tcon\nsalsa \\ \"ñ\" \r\n end"

    @Test(arguments: [
        ImportReportLine.event(.started(routines: 300)),
        .event(.progress(ImportProgress(routine: 2, count: 3, title: odd, percent: 57))),
        .event(.problem(StickProblem(path: "Salsa/routine.toml", reason: odd, line: 12))),
        .event(.problem(StickProblem(path: "", reason: "no line"))),
        .event(.routine(title: odd, outcome: .replaced)),
        .event(.routineFailed(title: "B", reason: odd)),
        .event(.finished(ImportSummary(added: 1, replaced: 2, unchanged: 3, failed: 4))),
        .event(.finished(ImportSummary(stopped: ""))),
        .event(.finished(ImportSummary(failed: 1, stopped: "stick removed"))),
        .file("B Tango/01\tSong.wav"),
    ])
    func aLineReadsBackAsWritten(_ line: ImportReportLine) throws {
        let text = line.text
        #expect(text.hasSuffix("\n"))
        #expect(text.dropLast().firstIndex(of: "\n") == nil)
        #expect(text.utf8.dropLast().firstIndex(of: 0x0A) == nil)
        #expect(ImportReportLine(parsing: text.dropLast()) == line)
    }

    @Test(arguments: ["", "started", "started\tx", "progress\t1\t2\t3", "routine\tmaybe\tA", "finished\t1\t2\t3\t4",
                      "file", "hello\tworld"])
    func anythingElseIsNoLine(_ text: String) {
        #expect(ImportReportLine(parsing: Substring(text)) == nil)
    }
}
