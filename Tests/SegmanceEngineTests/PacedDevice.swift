import ALSA
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import SegmanceTestSupport

/// The paced test PCM (`Tests/PacedPCM/paced.c`, an ALSA I/O plugin built once per process):
/// a device on CLOCK_MONOTONIC of its own, needing no server and no sound card, that writes
/// what it played (`capture`) and when (`truth`, `PacedTruth`). Its pointer moves a period
/// at a time, at each period's start, as alsa-lib's jack plugin's does (or, `continuous`,
/// frame by frame).
enum PacedDevice {
    /// The plugin, built by `Tests/PacedPCM/build.sh` into the scratch folder.
    static let plugin: Result<String, PluginError> = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent() // SegmanceEngineTests
        url.deleteLastPathComponent() // Tests
        let script = url.appendingPathComponent("PacedPCM/build.sh").path
        let out = EngineTestEnvironment.directory.appendingPathComponent("paced-\(getpid())").path
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = [script, out]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        do { try process.run() } catch { return .failure(PluginError(description: "\(script): \(error)")) }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            return .failure(PluginError(description: "\(script) failed (\(process.terminationStatus)): \(output)"))
        }
        return .success(out + "/libasound_module_pcm_segpaced.so")
    }()

    /// Under ThreadSanitizer or AddressSanitizer (their runtimes define these): the render
    /// thread is several times slower, and the sanitizer owns malloc (no heap-call counts).
    static var underSanitizer: Bool { Sanitizer.active }

    /// The device's pace in percent of real time: a quarter under a sanitizer, whose render
    /// thread does not keep real time's deadlines; real time otherwise.
    static var pace: Int { underSanitizer ? 25 : 100 }

    /// Opens the paced PCM writing what it plays to `capture` and its account to `truth`.
    /// `continuous`: its pointer moves frame by frame (fetching 32 frames at a time) rather
    /// than a period at a time.
    static func open(capture: String, truth: String, pace: Int = PacedDevice.pace,
                     continuous: Bool = false) throws -> PCMDevice {
        let library = try plugin.get()
        return try PCMDevice(name: "segtest_paced", definitions: """
            pcm_type.segpaced { lib "\(library)" }
            pcm.segtest_paced {
                type segpaced
                capture "\(capture)"
                truth "\(truth)"
                pace \(pace)
                pointer \(continuous ? "continuous" : "period")
            }
            """)
    }

    struct PluginError: Error, CustomStringConvertible { var description: String }
}

/// The paced device's account of what it played when (its `truth` file): independent of
/// the engine, whose device clock the tests judge against it.
struct PacedTruth {
    struct Start { var frame: Int64; var time: Int64 }
    var starts: [Start] = []
    /// Periods fetched with frames not yet written, and underruns (the pointer passed the
    /// frames written): each a stream frame.
    var shorts: [Int64] = []
    var xruns: [Int64] = []
    /// Writes over frames the device had already fetched (a rewind into what it took): the
    /// stream frame of each.
    var lates: [Int64] = []
    var fetches = 0
    /// Frames a second the device played at (its rate at its pace).
    let framesPerSecond: Int64

    init(path: String, rate: Int64 = 48_000, pace: Int = PacedDevice.pace) throws {
        framesPerSecond = rate * Int64(pace) / 100
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n") {
            let words = line.split(separator: " ")
            guard let kind = words.first, words.count >= 3,
                  let a = Int64(words[1]), let b = Int64(words[2]) else {
                throw PacedDevice.PluginError(description: "\(path): a line that does not parse: \(line)")
            }
            switch kind {
            case "start": starts.append(Start(frame: a, time: b))
            case "fetch": fetches += 1
            case "short": shorts.append(a)
            case "xrun": xruns.append(a)
            case "late": lates.append(a)
            default: continue
            }
        }
    }

    /// Underruns and short fetches inside the stream: before `end`, the frames the engine
    /// handed in all. At `end` the device ran dry after the render thread's last period and
    /// before `stop(drain:)` began its drain (a control side delayed by a loaded machine:
    /// the default buffer is 32 ms at a quarter pace): everything written had played.
    func gaps(before end: Int64) -> (xruns: [Int64], shorts: [Int64]) {
        (xruns.filter { $0 < end }, shorts.filter { $0 < end })
    }

    /// The stream frame the device was playing at CLOCK_MONOTONIC `time` (ns): from the
    /// start in force, at the device's rate. Nil before the first start.
    func frame(at time: Int64) -> Int64? {
        guard let start = starts.last(where: { $0.time <= time }) else { return nil }
        return start.frame + (time - start.time) * framesPerSecond / 1_000_000_000
    }
}
