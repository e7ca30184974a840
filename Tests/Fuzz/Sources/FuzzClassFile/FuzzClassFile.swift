// libFuzzer target: bytes as a stick's class.toml, through the TOML parser and the class
// set reader (`ClassFile.parse`, what an import and `segmance stick check` run on it).
@testable import SegmanceStick
import SegmanceCore

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzClassFile(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let reading = ClassFile.parse(bytes)
    precondition(reading.sets.count <= ClassFile.maxSets, "\(reading.sets.count) sets read")
    // Every problem names the file and says why.
    for problem in reading.problems {
        precondition(problem.path == ClassFile.name, "a problem of \(problem.path)")
        precondition(!problem.reason.isEmpty, "a problem without a reason")
    }
    for set in reading.sets {
        precondition(!set.name.isEmpty, "a set without a name")
        precondition((1...ClassFile.maxTracks).contains(set.tracks.count), "\(set.tracks.count) tracks")
        precondition((0...ClassSet.maxGap).contains(set.gap), "gap \(set.gap)")
        for track in set.tracks { precondition((track.part ?? 0) >= 0, "part \(track.part ?? 0)") }
    }
    return 0
}
