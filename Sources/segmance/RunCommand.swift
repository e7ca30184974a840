import ArgumentParser
import SegmanceBoard
import SegmanceDaemon
#if canImport(Glibc)
import Glibc
#endif

struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the appliance on this board: the daemon the service starts.",
        discussion: """
        Reads the configuration (board profile, library, media root, auto import, real-time \
        priority), opens the board's GPIO lines, input devices, display and ALSA device, and \
        plays from the library until SIGTERM or SIGINT. Logs go to standard error; under \
        systemd (Type=notify) it reports READY, pings the watchdog and reports STOPPING.
        """)

    @Option(help: "The daemon's configuration file.")
    var config: String = "/etc/segmance/segmance.toml"

    func run() throws {
        do {
            let configuration = try DaemonConfiguration(parsing: try readFile(config), file: config)
            let profile = try BoardProfile(parsing: try readFile(configuration.board), file: configuration.board)
            var environment = Daemon.Environment(openAudio: RealtimeAudio.open)
            environment.variables = processEnvironment()
            environment.trimsStartup = true
            environment.setsControlPriority = true
            let daemon = try Daemon(configuration: configuration, profile: profile, environment: environment)
            try daemon.run()
        } catch {
            // Why it could not start or went on, at error priority for journald.
            Log.standardError.error("\(error)")
            throw ExitCode.failure
        }
    }
}

/// The process's environment variables.
func processEnvironment() -> [String: String] {
    var variables: [String: String] = [:]
    var entry = environ
    while let pointer = entry.pointee {
        let text = String(cString: pointer)
        if let equals = text.firstIndex(of: "=") {
            variables[String(text[..<equals])] = String(text[text.index(after: equals)...])
        }
        entry += 1
    }
    return variables
}
