import Dispatch
import Foundation

/// A jackd with the dummy backend, started by a test and stopped when it ends: a real-time
/// paced sink for alsa-lib's jack plugin on a machine with no sound card.
///
/// One runs at a time in the test process: the jack plugin finds its server through
/// `JACK_DEFAULT_SERVER`, a single variable for the whole process, so with two servers up
/// a device opened by one test could join the other test's server and stall for good when
/// that test stopped it. (A CI run hung that way.) `init` waits for the previous server's
/// `stop()`.
final class JackServer {
    /// Whether jackd2 is installed (deploy/install-deps.sh installs it).
    static let isInstalled = FileManager.default.isExecutableFile(atPath: "/usr/bin/jackd")
        && FileManager.default.isExecutableFile(atPath: "/usr/bin/jack_wait")

    private static let oneAtATime = DispatchSemaphore(value: 1)

    let name: String
    private let process = Process()
    private let exited = DispatchSemaphore(value: 0)
    private var holdsTurn = true

    /// Starts `jackd -n NAME -d dummy` at `rate` with `period` frames and waits until it
    /// accepts clients (`jack_wait -w`). Clients of this process find it through
    /// `JACK_DEFAULT_SERVER`.
    init(rate: Int = 48_000, period: Int = 128) throws {
        Self.oneAtATime.wait()
        name = "segtest-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var environment = ProcessInfo.processInfo.environment
        environment["JACK_NO_AUDIO_RESERVATION"] = "1"
        process.executableURL = URL(fileURLWithPath: "/usr/bin/jackd")
        // -t: a generous client timeout, so a loaded CI machine does not get a client
        // thrown out of the graph (its device would never move again).
        process.arguments = ["-n", name, "-t", "10000", "-d", "dummy", "-r", "\(rate)", "-p", "\(period)",
                             "-P", "2", "-C", "0"]
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        process.terminationHandler = { [exited] _ in exited.signal() }
        do {
            try process.run()
        } catch {
            release()
            throw error
        }
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

    /// Freezes the server (SIGSTOP): its clients' devices stop consuming, like a hung
    /// sound card. `resume()` lets it go on.
    func freeze() { kill(process.processIdentifier, SIGSTOP) }

    /// Lets a frozen server go on (SIGCONT).
    func resume() { kill(process.processIdentifier, SIGCONT) }

    /// Stops the server (SIGTERM, SIGKILL if it is still there after 5 s) and lets the
    /// next test start one.
    func stop() {
        if process.isRunning {
            resume()
            process.terminate()
            if exited.wait(timeout: .now() + 5) == .timedOut { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        release()
    }

    private func release() {
        guard holdsTurn else { return }
        holdsTurn = false
        Self.oneAtATime.signal()
    }

    deinit { stop() }

    struct JackError: Error, CustomStringConvertible { var description: String }
}
