import Foundation
import Testing

/// The real `segmance` binary run with `args`, its output (standard output and error); a
/// non-zero exit is an issue.
@discardableResult
func runSegmance(_ args: [String], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: HelpTextTests.binary)
    process.arguments = args
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    let text = String(decoding: data, as: UTF8.self)
    #expect(process.terminationStatus == 0, "\(args): \(text)", sourceLocation: sourceLocation)
    return text
}
