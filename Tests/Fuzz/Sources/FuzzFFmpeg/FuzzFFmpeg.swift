// libFuzzer target: bytes as an MP4/M4A (or Matroska, ASF, ADTS AAC) through what
// FFmpegDecoder reads itself before it starts the helper (ISOBoxLayout, ASFHeader), and
// then through the helper's own decode loop — HelperDecode.swift and HelperReport.swift of
// Sources/segmance-ffmpeg, linked into this target as they are — in this process, so the
// fuzzer sees every crash and leak. run.sh closes standard output (-close_fd_mask=1): the
// helper writes its float frames there.
import FuzzSupport
@testable import AudioDecoding
@testable import FFmpegHelper

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFFmpeg(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let bytes = size == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: size))
    let path = FuzzFolder.write(bytes, to: "input")
    defer { FuzzFolder.empty() }
    let sniff = FileSniff.of(Array(bytes.prefix(64)))
    _ = ISOBoxLayout.sampleEntries(path)
    if let layout = ISOBoxLayout.of(path), case .cut(_, let end, let fileSize) = layout {
        precondition(end > fileSize, "a cut box that ends at \(end), inside the file's \(fileSize) bytes")
    }
    _ = ASFHeader.declaredFileSize(path)
    let kind: String
    switch sniff {
    case .media(let name): kind = name
    default: kind = "MP4"
    }
    let report = HelperReport()
    let status = HelperDecode(kind: kind, path: path, report: report).run()
    precondition(status == 0 || status == 1, "helper status \(status)")
    return 0
}
