import Foundation

/// A jackd with the dummy backend, started by a test and stopped when it ends: a real-time
/// paced sink for alsa-lib's jack plugin on a machine with no sound card.
final class JackServer {
    /// Whether jackd2 is installed (deploy/install-deps.sh installs it).
    static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/jack_wait")

    let name: String
    private let process = Process()

    /// Starts `jackd -n NAME -d dummy` at `rate` with `period` frames and waits until it
    /// accepts clients (`jack_wait -w`). Clients of this process find it through
    /// `JACK_DEFAULT_SERVER`.
    init(rate: Int = 48_000, period: Int = 128) throws {
        name = "segtest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_NO_AUDIO_RESERVATION"] = "1"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        process.arguments = ["-n", name, "-d", "dummy", "-r", "\(rate)", "-p", "\(period)", "-P", "2", "-C", "0"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let wait = Process()
        wait.executableURL = URL(fileURLWithPath: "/usr/bin/jack_wait")
        wait.arguments = ["-s", name, "-w", "-t", "20"]
        wait.standardOutput = FileHandle.nullDevice
        wait.standardError = FileHandle.nullDevice
        try wait.run()
        wait.waitUntilExit()
        guard wait.terminationStatus == 0, process.isRunning else {
            stop()
            throw JackError(description: "jackd -n \(name) -d dummy did not come up")
        }
        setenv("JACK_DEFAULT_SERVER", name, 1)
    }

    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
    }

    deinit { stop() }

    struct JackError: Error, CustomStringConvertible { var description: String }
}
