// swift-tools-version:5.4
// libFuzzer targets for what a stick may hold (run them with Tests/Fuzz/run.sh SECONDS).
// Tools version 5.4: from 5.5 on SwiftPM renames an executable's main (for testing) and links
// main to it, which clashes with libFuzzer's own main.
// A package of its own, so that only these targets and the code they reach are built with
// -sanitize=fuzzer,address; the main package's build is untouched.
import PackageDescription

let package = Package(
    name: "SegmanceFuzz",
    dependencies: [
        .package(name: "Segmance", path: "../.."),
    ],
    targets: [
        // A private temporary folder per fuzzer process, and bytes to files in it.
        .target(name: "FuzzSupport"),
        // routine.toml: the TOML parser and the manifest reader.
        .executableTarget(name: "FuzzManifest", dependencies: [
            "FuzzSupport", .product(name: "SegmanceStick", package: "Segmance"),
        ]),
        // class.toml: the class sets a teacher writes at the stick's root.
        .executableTarget(name: "FuzzClassFile", dependencies: [
            "FuzzSupport", .product(name: "SegmanceStick", package: "Segmance"),
        ]),
        // A small folder tree made from the bytes, scanned and its routines built.
        .executableTarget(name: "FuzzStickScan", dependencies: [
            "FuzzSupport", .product(name: "SegmanceStick", package: "Segmance"),
        ]),
        // SndFileDecoder (libsndfile): WAV, AIFF, FLAC, Ogg Vorbis, Opus, MP3, AU, CAF, W64.
        .executableTarget(name: "FuzzSndFile", dependencies: [
            "FuzzSupport", .product(name: "SegmanceStick", package: "Segmance"),
        ]),
        // The FFmpeg helper's decode loop (Sources/segmance-ffmpeg, linked here in-process)
        // and the MP4/ASF structure checks FFmpegDecoder makes before it starts the helper.
        .executableTarget(name: "FuzzFFmpeg", dependencies: [
            "FuzzSupport", .product(name: "SegmanceStick", package: "Segmance"),
            .product(name: "FFmpeg", package: "Segmance"),
        ]),
    ]
)
