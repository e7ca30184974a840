// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Segmance",
    products: [
        .executable(name: "segmance", targets: ["segmance"]),
        .executable(name: "segmance-bench", targets: ["SegmanceBench"]),
        // FFmpeg decoding in a process of its own, started by segmance (FFmpegHelper.FFmpegDecoder).
        .executable(name: "segmance-ffmpeg", targets: ["segmance-ffmpeg"]),
        // For the fuzz targets only (Tests/Fuzz, a package of its own built with -sanitize=fuzzer).
        .library(name: "SegmanceStick", targets: ["SegmanceStick", "AudioDecoding", "FFmpegHelper", "SegmanceCore"]),
        .library(name: "FFmpeg", targets: ["FFmpeg"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-atomics", from: "1.3.0"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", from: "0.2.0"),
    ],
    targets: [
        // The pure core: rules of the appliance. Standard library only.
        .target(name: "SegmanceCore"),
        // What the kernel gives, wrapped once: SystemError, EINTR-retrying calls, threads,
        // eventfd, signalfd, pidfd, timerfd, sleeping, memory locking, directories, and the one
        // clock (CLOCK_MONOTONIC) every target that measures or waits on time reads.
        .target(name: "LinuxSystem", dependencies: ["CLinuxSystem"]),
        // Pure input decoding: edges -> presses / detents -> core events.
        .target(name: "SegmanceControls", dependencies: ["SegmanceCore"]),
        // Pure screen: state -> character frame.
        .target(name: "SegmanceScreen", dependencies: ["SegmanceCore"]),
        // The render function shared by the real-time thread and the twin, and the audio
        // contract (`AudioEngine`: commands in, reports out) both audio sides implement.
        .target(name: "SegmanceAudio", dependencies: [
            "SegmanceCore", "RubberBand", .product(name: "Atomics", package: "swift-atomics"),
        ]),

        // C libraries, each wrapped once.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile",
                       providers: [.apt(["libsndfile1-dev"])]),
        .systemLibrary(name: "CSoxr", pkgConfig: "soxr",
                       providers: [.apt(["libsoxr-dev"])]),
        .systemLibrary(name: "CFFmpeg", pkgConfig: "libavformat",
                       providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswresample-dev"])]),
        .systemLibrary(name: "CALSA", pkgConfig: "alsa",
                       providers: [.apt(["libasound2-dev"])]),
        .systemLibrary(name: "CGPIOD", pkgConfig: "libgpiod",
                       providers: [.apt(["libgpiod-dev"])]),
        // aubio's beat tracker, at import only: its header (types); the library is opened at
        // run time by the Aubio target (dlopen), so nothing links or loads it before an import.
        .systemLibrary(name: "CAubio", providers: [.apt(["libaubio-dev"])]),
        // Time-stretching with the pitch kept (speed 50–150 %); GPL-2+, see docs/speed.md.
        .systemLibrary(name: "CRubberBand", pkgConfig: "rubberband",
                       providers: [.apt(["librubberband-dev"])]),
        .target(name: "SndFile", dependencies: ["CSndFile", "LinuxSystem"]),
        .target(name: "Soxr", dependencies: ["CSoxr"]),
        .target(name: "FFmpeg", dependencies: ["CFFmpeg", "LinuxSystem"]),
        .target(name: "ALSA", dependencies: ["CALSA", "LinuxSystem"]),
        .target(name: "GPIOD", dependencies: ["CGPIOD", "LinuxSystem"]),
        .target(name: "Aubio", dependencies: ["CAubio"]),
        .target(name: "RubberBand", dependencies: ["CRubberBand"]),
        // Linux kernel interfaces with no C library of their own: evdev input, i2c-dev.
        .target(name: "LinuxInput", dependencies: ["LinuxSystem"]),
        .systemLibrary(name: "CLinuxI2C"),
        .target(name: "LinuxI2C", dependencies: ["CLinuxI2C", "LinuxSystem"]),
        // Character displays: HD44780 over a PCF8574 I2C backpack, an LCDproc client.
        .target(name: "CharacterDisplay", dependencies: ["LinuxI2C", "LinuxSystem", "SegmanceScreen"]),

        // A TOML parser for untrusted text (a stick's routine.toml): an error, never a trap,
        // on any input; bounded size and nesting. Standard library only.
        .target(name: "TOML"),
        // Audio files decoded into the output format (stereo Int16 at the output rate): the
        // decoder contract, libsndfile's decoder, the content sniff, the conversion and the mix.
        .target(name: "AudioDecoding", dependencies: ["SndFile", "Soxr"]),
        // A program started with posix_spawn, its output and errors piped back.
        .target(name: "ChildProcess", dependencies: ["LinuxSystem"]),
        // Decoding in the segmance-ffmpeg helper process: FFmpegDecoder and the helper's pipe.
        .target(name: "FFmpegHelper", dependencies: ["AudioDecoding", "ChildProcess"]),
        // Spoken counts: espeak-ng's speech, resampled to the output rate.
        .target(name: "Speech", dependencies: ["Soxr", "ChildProcess"]),
        // Beat tracking at import: aubio's beats, one straight grid through them.
        .target(name: "BeatTracking", dependencies: ["SegmanceCore", "Aubio", "LinuxSystem"]),
        // The stick: the scan, routine.toml, routines built from folders, the check, the
        // writer (manifests, WAVs), the demo stick, and the decoder its files go through.
        .target(name: "SegmanceStick", dependencies: [
            "SegmanceCore", "TOML", "SndFile", "AudioDecoding", "FFmpegHelper", "LinuxSystem",
        ]),
        // Driver events into the pure controls: GPIO edges and evdev key/axis streams.
        .target(name: "SegmanceInput", dependencies: ["SegmanceControls", "SegmanceCore", "LinuxInput", "GPIOD"]),
        // Board profiles: which pin, device, bus and display a board uses for each control.
        .target(name: "SegmanceBoard", dependencies: ["SegmanceCore", "SegmanceControls", "TOML"]),
        // SHA-256's compression with the CPU's SHA instructions, wrapped by SHA256Hash.
        .target(name: "CSHA256"),
        .target(name: "SHA256Hash", dependencies: ["CSHA256"]),
        // Sticks coming and going: the mount table's watcher and the mount helper's refusals.
        .target(name: "StickWatch", dependencies: ["SegmanceCore", "LinuxSystem"]),
        // The routine library (SQLite through GRDB), the PCM media store, the spoken counts' cache.
        .target(name: "SegmanceLibrary", dependencies: [
            "SegmanceCore", "SegmanceStick", "AudioDecoding", "Speech", "SHA256Hash", "LinuxSystem",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Routines between a stick and the library: the import (in line, on a thread or in the
        // import-worker process) and the export to a stick.
        .target(name: "StickTransfer", dependencies: [
            "SegmanceLibrary", "SegmanceCore", "SegmanceStick", "AudioDecoding", "BeatTracking", "LinuxSystem",
            "StickWatch",
        ]),
        // The appliance's wiring, run by the daemon and the twin alike: one owner of the
        // state that runs the reducer and carries out its effects (audio, library, imports).
        .target(name: "SegmanceAppliance", dependencies: [
            "SegmanceCore", "SegmanceControls", "SegmanceScreen", "SegmanceAudio",
            "SegmanceStick", "Speech", "SegmanceLibrary", "StickTransfer", "StickWatch",
        ]),
        // The twin: the appliance in virtual time — scenarios, a virtual board, the render
        // function called directly, WAV sink, frame log. Never a dependency of the daemon.
        .target(name: "SegmanceTwin", dependencies: [
            "SegmanceAppliance", "SegmanceCore", "SegmanceControls", "SegmanceScreen", "SegmanceAudio",
            "SegmanceLibrary", "StickTransfer", "ALSA",
        ]),
        // Linux descriptors the Glibc module lacks: signalfd, eventfd; naming threads.
        .systemLibrary(name: "CLinuxSystem"),
        // ThreadSanitizer's annotations (weak: nothing without it), for SPSCRing's slots.
        .systemLibrary(name: "CThreadSanitizer"),
        // The daemon: one poll loop over the board's inputs, the audio side, signals and timers.
        .target(name: "SegmanceDaemon", dependencies: [
            "SegmanceAppliance", "SegmanceAudio", "SegmanceBoard", "SegmanceInput", "SegmanceControls", "SegmanceCore",
            "SegmanceScreen", "CharacterDisplay", "LinuxI2C", "LinuxInput", "GPIOD", "SegmanceLibrary", "StickWatch",
            "SegmanceEngine", "LinuxSystem", "StickTransfer",
        ]),
        // The real-time engine: the render function on its own thread, writing to ALSA.
        .target(name: "SegmanceEngine", dependencies: [
            "SegmanceAudio", "SegmanceCore", "ALSA", "CThreadSanitizer", "LinuxSystem",
            .product(name: "Atomics", package: "swift-atomics"),
        ]),
        // Test and benchmark only: counts heap calls per thread (interposes malloc).
        .target(name: "CMallocCounter"),
        .executableTarget(name: "segmance", dependencies: [
            "SegmanceAppliance", "SegmanceTwin", "SegmanceEngine", "SegmanceStick", "AudioDecoding", "SegmanceLibrary",
            "StickTransfer", "SegmanceDaemon", "SegmanceBoard",
            "ALSA", "CharacterDisplay", "GPIOD", "LinuxInput", "LinuxSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "segmance-ffmpeg", dependencies: ["FFmpeg"]),
        .executableTarget(name: "SegmanceBench", dependencies: [
            "SegmanceCore", "SegmanceAudio", "SegmanceAppliance", "SegmanceTwin", "SegmanceLibrary", "SegmanceStick",
            "StickTransfer", "SHA256Hash", "SegmanceEngine",
            "SegmanceDaemon", "SegmanceBoard", "CharacterDisplay", "LinuxI2C", "LinuxInput", "ALSA", "SndFile", "FFmpeg", "LinuxSystem", "RubberBand",
            // The speed benchmark counts the render thread's heap calls (issue 12).
            "CMallocCounter",
            .product(name: "Histogram", package: "hdrhistogram-swift"),
        ]),

        .testTarget(name: "SegmanceCoreTests", dependencies: ["SegmanceCore"]),
        .testTarget(name: "SegmanceControlsTests", dependencies: ["SegmanceControls"]),
        .testTarget(name: "SegmanceScreenTests", dependencies: ["SegmanceScreen"]),
        .testTarget(name: "SegmanceAudioTests", dependencies: ["SegmanceAudio"]),
        .testTarget(name: "TOMLTests", dependencies: ["TOML"]),
        // Real kernel objects: threads, eventfd, signalfd, pidfd, timerfd, pagemap, directories.
        .testTarget(name: "LinuxSystemTests", dependencies: ["LinuxSystem", "CMallocCounter"]),
        // Temporary folders and generated audio shared by the test targets.
        .target(name: "SegmanceTestSupport", dependencies: ["SndFile", "LinuxSystem"], path: "Tests/SegmanceTestSupport"),
        .testTarget(name: "SegmanceMediaTests", dependencies: [
            "SegmanceStick", "AudioDecoding", "FFmpegHelper", "BeatTracking", "SndFile", "SegmanceTestSupport", "TOML",
            "Aubio",
        ]),
        .testTarget(name: "FFmpegTests", dependencies: ["FFmpeg", "SegmanceTestSupport"]),
        // The real `segmance` binary's help texts, walked through every subcommand.
        .testTarget(name: "SegmanceCommandTests"),
        .testTarget(name: "ALSATests", dependencies: ["ALSA"]),
        .testTarget(name: "GPIODTests", dependencies: ["GPIOD", "SegmanceTestSupport"]),
        .testTarget(name: "LinuxInputTests", dependencies: ["LinuxInput", "SegmanceTestSupport"]),
        .testTarget(name: "CharacterDisplayTests", dependencies: ["CharacterDisplay", "LinuxI2C", "SegmanceScreen", "SegmanceCore"],
                    exclude: ["Fixtures"]),
        .testTarget(name: "SegmanceLibraryTests", dependencies: [
            "SegmanceLibrary", "StickTransfer", "StickWatch", "SHA256Hash", "SegmanceStick", "AudioDecoding",
            "BeatTracking",
            "Speech", "SegmanceCore", "SndFile",
            "SegmanceTestSupport", "LinuxSystem",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "SegmanceInputTests", dependencies: ["SegmanceInput", "LinuxInput", "GPIOD"]),
        .testTarget(name: "SegmanceBoardTests", dependencies: ["SegmanceBoard"]),
        .testTarget(name: "SegmanceDaemonTests", dependencies: [
            "SegmanceDaemon", "SegmanceBoard", "SegmanceAppliance", "SegmanceAudio", "SegmanceCore", "SegmanceControls",
            "LinuxInput", "SegmanceLibrary", "StickTransfer", "StickWatch", "SegmanceStick", "SegmanceTestSupport",
            "LinuxSystem",
            "CharacterDisplay", "SegmanceScreen",
        ]),
        .testTarget(name: "SegmanceEngineTests", dependencies: [
            "SegmanceEngine", "CMallocCounter", "SegmanceAppliance", "SegmanceTwin", "SegmanceStick", "ALSA",
            "LinuxSystem",
            "SegmanceTestSupport",
        ]),
        .testTarget(name: "SegmanceTwinTests", dependencies: [
            "SegmanceTwin", "SegmanceAppliance", "SegmanceStick", "Speech", "SegmanceLibrary", "StickTransfer",
            "SndFile", "SegmanceTestSupport",
            "CharacterDisplay", "LinuxI2C",
        ]),
        // What the system tests compare: captured audio with the twin's, LCD screens with the
        // twin's frames, the daemon's control log placed in the twin. Tested on the host.
        .target(name: "BoxSupport", path: "Tests/BoxSupport"),
        .testTarget(name: "BoxSupportTests", dependencies: [
            "BoxSupport", "SegmanceTwin", "SegmanceAppliance", "SegmanceLibrary", "StickTransfer", "SegmanceCore",
            "SegmanceScreen", "SegmanceTestSupport",
            "SndFile",
        ]),
        // Real kernel drivers in the board in a box (Tests/System/run.sh); skipped elsewhere.
        .testTarget(name: "SystemTests", dependencies: [
            "GPIOD", "SegmanceInput", "SegmanceControls", "SegmanceCore", "SegmanceBoard", "SegmanceScreen",
            "LinuxI2C", "LinuxInput", "CharacterDisplay", "ALSA", "BoxSupport", "SndFile", "SegmanceTestSupport",
        ]),
    ],
    swiftLanguageModes: [.v6]
)

// The project's own targets build with every warning an error (the dependencies' targets are
// not in this list and keep their own settings). The C targets are held to the same.
let ownSwiftSettings: [SwiftSetting] = [.unsafeFlags(["-warnings-as-errors"])]
let ownCSettings: [CSetting] = [.unsafeFlags(["-Werror"])]
for target in package.targets where target.type != .system && target.type != .binary {
    target.swiftSettings = (target.swiftSettings ?? []) + ownSwiftSettings
    target.cSettings = (target.cSettings ?? []) + ownCSettings
}
