import Testing

// One file, linked into every test target (a symbolic link of this name in each), so that the
// three levels are one set of tags everywhere: docs/testing.md says how to run each level.
extension Tag {
    /// Pure code: values in, values out; no file, device, process or clock of the machine.
    @Tag static var unit: Self
    /// Real components: files on disk, SQLite, libsndfile, FFmpeg, ALSA and jackd, kernel
    /// descriptors, child processes (the `segmance` binary, the import worker).
    @Tag static var integration: Self
    /// The board in a box: real kernel drivers in a qemu VM (`Tests/System/run.sh`).
    @Tag static var system: Self
}
