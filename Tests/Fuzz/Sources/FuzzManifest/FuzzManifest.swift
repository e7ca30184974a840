// libFuzzer target: bytes as a routine.toml, through the TOML parser and the manifest
// reader (`Manifest.parse`, what `RoutineBuilder` runs on every stick's manifest).
@testable import SegmanceStick

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzManifest(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let reading = Manifest.parse(bytes, rate: 48_000)
    // A refused manifest says why.
    precondition(reading.manifest != nil || !reading.issues.isEmpty, "a manifest refused without an issue")
    // Every issue's line is one of the file's.
    let lines = bytes.count(where: { $0 == 0x0A }) + 1
    for issue in reading.issues {
        if let line = issue.line {
            precondition((1...lines).contains(line), "issue at line \(line) of \(lines): \(issue.message)")
        }
        precondition(!issue.message.isEmpty, "an issue without a message")
    }
    if let manifest = reading.manifest {
        precondition(manifest.parts.count <= Manifest.maxParts, "\(manifest.parts.count) parts read")
        for part in manifest.parts {
            if let from = part.from { precondition(from >= 0, "part \(part.index) from \(from)") }
            if let to = part.to { precondition(to >= 0, "part \(part.index) to \(to)") }
        }
    }
    return 0
}
