import CALSA
import Foundation

/// A private ALSA configuration for the engine tests, loaded through `ALSA_CONFIG_PATH`
/// before the first ALSA call (as in the ALSA tests). `file:` PCMs capture the exact
/// bytes the engine hands to ALSA; `null` swallows them without pacing.
enum EngineTestEnvironment {
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("segmance-engine-tests", isDirectory: true)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("asound.conf")
        try! "</usr/share/alsa/alsa.conf>\n".write(to: config, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", config.path, 1)
        snd_config_update_free_global()
        return directory
    }()

    static func prepare() { _ = directory }

    static func scratchFile(_ name: String) -> String {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString).raw").path
    }

    /// A PCM that writes the exact bytes it is handed to `path`, with `slave` behind it.
    static func filePCM(_ path: String, slave: String = "null") -> String {
        "file:FILE=\(path),FORMAT=raw,SLAVE=\(slave)"
    }
}
