import ALSA
import Foundation
import SegmanceStick

/// Scratch files and PCMs for the engine tests. The tests use the system's ALSA
/// configuration as it is (`file:` captures the exact bytes the engine hands to ALSA,
/// `null` swallows them without pacing) and define their paced PCM privately
/// (`PCMDevice(name:definitions:)`), so they never touch `ALSA_CONFIG_PATH`, which the
/// ALSA tests in the same process set for themselves.
enum EngineTestEnvironment {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("segmance-engine-tests", isDirectory: true)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }()

    static func prepare() { _ = directory }

    static func scratchFile(_ name: String) -> String {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString).raw").path
    }

    /// A PCM that writes the exact bytes it is handed to `path`, into `null`.
    static func filePCM(_ path: String) -> String {
        "file:FILE=\(path),FORMAT=raw"
    }

    /// A `type file` tap writing the bytes it is handed to `path`, in front of `plug`
    /// over alsa-lib's jack plugin: paced in real time by the jackd the test runs.
    static func jackTap(_ path: String) throws -> PCMDevice {
        try PCMDevice(name: "segtest_jack_tap", definitions: """
            pcm.segtest_jack_tap {
                type file
                file "\(path)"
                format raw
                slave.pcm {
                    type plug
                    slave.pcm {
                        type jack
                        playback_ports { 0 system:playback_1 1 system:playback_2 }
                    }
                }
            }
            """)
    }

    /// The repository's scenario folder.
    static let scenarios: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent() // SegmanceEngineTests
        url.deleteLastPathComponent() // Tests
        return url.appendingPathComponent("Scenarios").path
    }()

    /// The demo stick, written once per process.
    static let demoStick: String = {
        let path = directory.appendingPathComponent("demo-stick-\(getpid())").path
        try! DemoStick.write(to: path)
        return path
    }()
}
