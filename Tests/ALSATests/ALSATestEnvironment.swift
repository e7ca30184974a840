import CALSA
import Foundation
@testable import ALSA

/// A private ALSA configuration for the test process, loaded through `ALSA_CONFIG_PATH`
/// before the first ALSA call (alsa-lib reads and caches its configuration on first use).
/// It includes the system alsa.conf (for `null`, `file:…`) and adds PCMs that refuse things.
enum ALSATestEnvironment {
    /// A `rate` plugin on `null`: 4000...768000 Hz, linear formats only.
    static let ratePCM = "segtest_rate48"
    /// A `null` PCM with a hint description, for the catalog.
    static let hintedPCM = "segtest_hinted"
    static let hintedDescription = "Segmance test PCM"

    /// The scratch directory; touching it sets up the environment once per process.
    static let directory: URL = {
        let directory = FileManager.default.temporaryDirectory
            // One fixed folder: the config is the same for every run (written atomically) and
            // capture files have unique names, so runs neither collide nor pile up folders.
            .appendingPathComponent("segmance-alsa-tests", isDirectory: true)
        try! FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let config = directory.appendingPathComponent("asound.conf")
        let text = """
            </usr/share/alsa/alsa.conf>
            pcm.\(ratePCM) {
                type rate
                # alsa-lib's own converter: with libasound2-plugins installed (the engine
                # tests need its jack plugin) the default would be one of its converters,
                # which take rates the linear one refuses.
                converter "linear"
                slave { pcm "null" rate 48000 }
                converter "linear"
            }
            pcm.\(hintedPCM) {
                type null
                hint { show on description "\(hintedDescription)" }
            }

            """
        try! text.write(to: config, atomically: true, encoding: .utf8)
        setenv("ALSA_CONFIG_PATH", config.path, 1)
        // Drop a configuration alsa-lib may already have cached, so the next call reads ours.
        snd_config_update_free_global()
        return directory
    }()

    /// Call at the start of every test that touches ALSA.
    static func prepare() {
        _ = directory
    }

    /// A fresh file path in the scratch directory.
    static func scratchFile(_ name: String) -> String {
        directory.appendingPathComponent("\(name)-\(UUID().uuidString).raw").path
    }

    /// The full string form of a capturing PCM: the exact bytes written land in `path`.
    static func filePCM(_ path: String) -> String {
        "file:FILE=\(path),FORMAT=raw"
    }
}
