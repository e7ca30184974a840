import CALSA
import Foundation
import SegmanceMedia

/// A private ALSA configuration for the engine tests, loaded through `ALSA_CONFIG_PATH`
/// before the first ALSA call (as in the ALSA tests). `file:` PCMs capture the exact
/// bytes the engine hands to ALSA; `null` swallows them without pacing; the jack PCMs
/// are paced by a jackd dummy backend the test starts (`JackServer`).
enum EngineTestEnvironment {
    /// `plug` over alsa-lib's jack plugin: paced like hardware by the jackd the test runs.
    static let jackPCM = "segtest_jack"
    /// A `type file` tap in front of `jackPCM`: paced, and it captures the bytes.
    static let jackTapPCM = "segtest_jack_tap"

    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("segmance-engine-tests", isDirectory: true)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("asound.conf")
        let text = """
            </usr/share/alsa/alsa.conf>
            pcm.segtest_jack_raw {
                type jack
                playback_ports { 0 system:playback_1 1 system:playback_2 }
            }
            pcm.\(jackPCM) {
                type plug
                slave.pcm "segtest_jack_raw"
            }
            pcm.\(jackTapPCM) {
                @args [ FILE ]
                @args.FILE { type string }
                type file
                slave.pcm "\(jackPCM)"
                file $FILE
                format raw
            }

            """
        try! text.write(to: config, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", config.path, 1)
        snd_config_update_free_global()
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

    /// The paced capture PCM writing to `path`.
    static func jackTap(_ path: String) -> String {
        "\(jackTapPCM):FILE=\(path)"
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
