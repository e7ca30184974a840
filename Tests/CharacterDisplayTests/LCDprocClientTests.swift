import Foundation
import Testing
import SegmanceScreen
@testable import CharacterDisplay
#if canImport(Glibc)
import Glibc
#endif

/// The client against a real LCDd (Debian's lcdproc) on loopback, with the `text` driver,
/// which prints every frame it shows as a box on its standard output.
@Suite(.tags(.integration), .serialized, .enabled(if: access("/usr/sbin/LCDd", X_OK) == 0,
                             "needs LCDd: apt-get install lcdproc (deploy/install-deps.sh does)"))
struct LCDprocClientTests {
    final class Server {
        let pid: pid_t
        let output: String
        let port: UInt16

        init(columns: Int, rows: Int) throws {
            port = UInt16(20_000 + Int(getpid()) % 20_000 + columns)
            let dir = "/tmp/segmance-lcdd-\(getpid())-\(columns)x\(rows)"
            mkdir(dir, 0o755)
            output = dir + "/frames.txt"
            let config = """
            [server]
            DriverPath=/usr/lib/x86_64-linux-gnu/lcdproc/
            Driver=text
            Bind=127.0.0.1
            Port=\(port)
            Foreground=yes
            ReportToSyslog=no
            ServerScreen=no
            WaitTime=5
            [text]
            Size=\(columns)x\(rows)
            """
            let f = fopen(dir + "/LCDd.conf", "w")!
            fputs(config, f)
            fclose(f)
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
            var pid: pid_t = 0
            let args = ["/usr/sbin/LCDd", "-c", dir + "/LCDd.conf", "-f"]
            var argv = args.map { strdup($0) } + [nil]
            let rc = posix_spawn(&pid, args[0], &actions, nil, &argv, environ)
            posix_spawn_file_actions_destroy(&actions)
            for p in argv { free(p) }
            guard rc == 0 else { throw LCDprocError("posix_spawn LCDd: \(rc)") }
            self.pid = pid
        }

        deinit {
            kill(pid, SIGKILL) // LCDd lingers on SIGTERM while a client is connected
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }

        /// Connects, retrying while LCDd starts.
        func connect() throws -> LCDprocClient {
            var last: Error?
            for _ in 0..<100 {
                do { return try LCDprocClient(port: port) } catch {
                    last = error
                    usleep(50_000)
                }
            }
            throw last!
        }

        /// Waits until LCDd has printed a frame whose rows are `rows`.
        func waitForFrame(_ rows: [String]) -> Bool {
            let box = rows.map { "|\($0)|" }.joined(separator: "\n")
            for _ in 0..<200 {
                if let text = try? String(contentsOfFile: output, encoding: .utf8), text.contains(box) { return true }
                usleep(50_000)
            }
            return false
        }
    }

    @Test(arguments: [(16, 2), (20, 4)])
    func lcddShowsTheRenderedFrame(columns: Int, rows: Int) throws {
        let server = try Server(columns: columns, rows: rows)
        let client = try server.connect()
        #expect(client.columns == columns && client.rows == rows)
        #expect(client.greeting.hasPrefix("connect LCDproc"))
        var frame = Frame(columns: columns, rows: rows)
        frame.put([Glyph.play.rawValue, 0x20] + Array("2/3 Groove".utf8), row: 0)
        frame.put(Array("0:12/0:32 {x}".utf8), row: rows - 1)
        frame.put([Glyph.markA.rawValue, Glyph.markB.rawValue], row: 0, column: columns - 2)
        try client.show(frame)
        var expected = (0..<rows).map { _ in String(repeating: " ", count: columns) }
        expected[0] = ("> 2/3 Groove" + String(repeating: " ", count: columns - 14) + "AB")
        expected[rows - 1] = "0:12/0:32 (x)" + String(repeating: " ", count: columns - 13)
        #expect(server.waitForFrame(expected), "LCDd never showed \(expected)")
        // A change is sent and shown too.
        frame.put(Array("3".utf8), row: rows - 1, column: 3)
        try client.show(frame)
        expected[rows - 1] = "0:13/0:32 (x)" + String(repeating: " ", count: columns - 13)
        #expect(server.waitForFrame(expected))
    }

    @Test func noServerIsAClearError() {
        #expect(throws: LCDprocError.self) { try LCDprocClient(port: 1) }
        do { _ = try LCDprocClient(port: 1) } catch {
            #expect(error.description == "connect to LCDd at 127.0.0.1:1: Connection refused")
        }
    }
}
