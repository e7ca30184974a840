// segmance-ffmpeg KIND FILE: decodes the first audio stream of FILE with FFmpeg's libraries
// for `segmance` (FFmpegHelper's FFmpegDecoder), in a process of its own, so that
//   - `segmance` and the daemon do not load libavcodec and the ~120 libraries it pulls in
//     (start-up time and resident memory stay theirs), and
//   - a file that makes FFmpeg crash, loop or swell ends this process (bounded by the
//     limits set below), not the appliance: the parent names it as a damaged file.
//
// Standard output: once the first frame is decoded, a 24-byte header — "SGF1", channels
// (UInt32 LE), sample rate (UInt32 LE), frames the header announces (Int64 LE, 0 unknown),
// 4 bytes reserved — then interleaved 32-bit float frames until the end.
// Standard error, at the end: tab-separated lines (see FFmpegDecoder.judge in FFmpegHelper).
import FFmpeg
#if canImport(Glibc)
import Glibc
#endif

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    writeStandardError("usage: segmance-ffmpeg KIND FILE  (used by segmance; KIND: MP4, Matroska, WMA, AAC)\n")
    exit(64)
}
HelperLimits.apply()
let report = HelperReport()
let status = HelperDecode(kind: arguments[1], path: arguments[2], report: report).run()
report.flush()
exit(status)
