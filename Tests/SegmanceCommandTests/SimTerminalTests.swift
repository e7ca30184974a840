import Foundation
import Glibc
import Testing

/// The interactive simulator in a pseudo-terminal, as a person runs it: keys typed, the LCD
/// read back from what it draws. Audio goes to a WAV (the ALSA device named does not exist).
@Suite(.tags(.integration), .serialized) struct SimTerminalTests {
    /// A running `segmance sim` on the slave side of a pty; `screens` holds what it drew.
    final class SimInTerminal {
        let process = Process()
        let master: Int32
        var output = ""

        init(_ arguments: [String]) throws {
            // Swift's Glibc module leaves out the X/Open pty calls: they are looked up by name.
            typealias Call = @convention(c) (Int32) -> Int32
            typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
            let libc = dlopen(nil, RTLD_NOW)
            func call(_ name: String) -> Call { unsafeBitCast(dlsym(libc, name)!, to: Call.self) }
            let ptsname = unsafeBitCast(dlsym(libc, "ptsname")!, to: Name.self)
            master = call("posix_openpt")(O_RDWR | O_NOCTTY)
            guard master >= 0, call("grantpt")(master) == 0, call("unlockpt")(master) == 0, let name = ptsname(master) else {
                throw CocoaError(.fileNoSuchFile)
            }
            let slave = open(String(cString: name), O_RDWR | O_NOCTTY)
            guard slave >= 0 else { throw CocoaError(.fileNoSuchFile) }
            let handle = FileHandle(fileDescriptor: slave, closeOnDealloc: true)
            process.executableURL = URL(fileURLWithPath: HelpTextTests.binary)
            process.arguments = ["sim"] + arguments
            process.standardInput = handle
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        }

        deinit {
            if process.isRunning { process.terminate() }
            close(master)
        }

        func type(_ text: String) {
            let bytes = Array(text.utf8)
            _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
        }

        /// The rows of the LCD box in the last drawing so far.
        var lastScreen: [String] {
            guard let home = output.range(of: "\u{1B}[H", options: .backwards) else { return [] }
            return output[home.upperBound...].split(whereSeparator: \.isNewline).compactMap { line in
                guard let start = line.firstIndex(of: "│"), let end = line.lastIndex(of: "│"), start < end else { return nil }
                return String(line[line.index(after: start)..<end])
                    .replacingOccurrences(of: "\u{1B}[2m", with: "").replacingOccurrences(of: "\u{1B}[22m", with: "")
            }
        }

        /// Reads what the simulator draws until its LCD shows a screen `matching` says is
        /// the one, for at most `seconds`; the screen, or nil.
        @discardableResult
        func waitForScreen(seconds: Double = 30, _ matching: ([String]) -> Bool) -> [String]? {
            let deadline = Date().addingTimeInterval(seconds)
            var chunk = [UInt8](repeating: 0, count: 65_536)
            while Date() < deadline {
                var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&fds, 1, 100) > 0 {
                    let n = read(master, &chunk, chunk.count)
                    if n > 0 { output += String(decoding: chunk[0..<n], as: UTF8.self) }
                }
                // A drawing is whole once the next one (or the end) follows its last row.
                if let home = output.range(of: "\u{1B}[J", options: .backwards) {
                    let drawn = String(output[..<home.upperBound])
                    let screen = SimInTerminal.screen(of: drawn)
                    if matching(screen) { return screen }
                }
            }
            return nil
        }

        static func screen(of drawn: String) -> [String] {
            guard let home = drawn.range(of: "\u{1B}[H", options: .backwards) else { return [] }
            return drawn[home.upperBound...].split(whereSeparator: \.isNewline).compactMap { line in
                guard let start = line.firstIndex(of: "│"), let end = line.lastIndex(of: "│"), start < end else { return nil }
                return String(line[line.index(after: start)..<end])
            }
        }

        /// Types q and waits for the simulator to end; its exit status.
        func quit() -> Int32 {
            type("q")
            let deadline = Date().addingTimeInterval(20)
            while process.isRunning, Date() < deadline {
                var chunk = [UInt8](repeating: 0, count: 65_536)
                var fds = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
                if poll(&fds, 1, 100) > 0 { _ = read(master, &chunk, chunk.count) }
            }
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// A stick of one routine, "Song", one part of `seconds` of a quiet tone (16-bit WAV).
    static func stick(seconds: Int) throws -> String {
        let root = NSTemporaryDirectory() + "segmance-sim-pty-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: root + "/Song", withIntermediateDirectories: true)
        let rate = 48_000, frames = seconds * rate
        var data = Data()
        func le<T: FixedWidthInteger>(_ v: T) { withUnsafeBytes(of: v.littleEndian) { data.append(contentsOf: $0) } }
        data.append(contentsOf: Array("RIFF".utf8)); le(UInt32(36 + frames * 4)); data.append(contentsOf: Array("WAVEfmt ".utf8))
        le(UInt32(16)); le(UInt16(1)); le(UInt16(2)); le(UInt32(rate)); le(UInt32(rate * 4)); le(UInt16(4)); le(UInt16(16))
        data.append(contentsOf: Array("data".utf8)); le(UInt32(frames * 4))
        for f in 0..<frames {
            let s = Int16(2000 * sin(2 * Double.pi * 440 * Double(f) / Double(rate)))
            le(s); le(s)
        }
        try data.write(to: URL(fileURLWithPath: root + "/Song/01 Tone.wav"))
        return root
    }

    static func arguments(_ stick: String, _ more: [String] = []) -> [String] {
        // The WAV beside the stick, not in it: a file growing on the stick would be imported.
        ["--stick", stick, "--device", "segmance-no-such-pcm", "--wav", stick + ".wav"] + more
    }

    @Test func speedFromTheCommandLineAndTheSpeedKeys() throws {
        let stick = try Self.stick(seconds: 20)
        defer { for path in [stick, stick + ".wav"] { try? FileManager.default.removeItem(atPath: path) } }
        let sim = try SimInTerminal(Self.arguments(stick, ["--speed", "75"]))
        // --speed 75: the part loads at 75 %, shown beside the clock.
        let loaded = sim.waitForScreen { $0.count == 2 && $0[0].contains("1/1 Tone") && $0[1].hasSuffix("75%") }
        #expect(loaded != nil, "no 75% on the LCD; last screen: \(sim.lastScreen)")
        // ] is LOOP held with the encoder turned on: 80 %; [ [ [ back down to 65 %.
        sim.type("]")
        #expect(sim.waitForScreen { $0.count == 2 && $0[1].hasSuffix("80%") } != nil, "\(sim.lastScreen)")
        sim.type("[[[")
        #expect(sim.waitForScreen { $0.count == 2 && $0[1].hasSuffix("65%") } != nil, "\(sim.lastScreen)")
        #expect(sim.quit() == 0)
    }

    @Test func arrowsMoveTheMenuTheWayTheyPoint() throws {
        let stick = try Self.stick(seconds: 5)
        defer { for path in [stick, stick + ".wav"] { try? FileManager.default.removeItem(atPath: path) } }
        let sim = try SimInTerminal(Self.arguments(stick))
        #expect(sim.waitForScreen { $0.count == 2 && $0[0].contains("1/1 Tone") } != nil, "\(sim.lastScreen)")
        sim.type("\r")
        #expect(sim.waitForScreen { $0.first?.hasPrefix(">Routines") == true } != nil, "\(sim.lastScreen)")
        // ↓ goes down to the row below, ↑ back up.
        sim.type("\u{1B}[B")
        #expect(sim.waitForScreen { $0.count == 2 && $0[1].hasPrefix(">Count") } != nil, "\(sim.lastScreen)")
        sim.type("\u{1B}[A")
        #expect(sim.waitForScreen { $0.first?.hasPrefix(">Routines") == true } != nil, "\(sim.lastScreen)")
        #expect(sim.quit() == 0)
    }

    @Test func theHelpListsEveryKey() throws {
        let help = try HelpTextTests.help(["sim"]).text.replacingOccurrences(of: "\n", with: " ")
            .split(separator: " ", omittingEmptySubsequences: true).joined(separator: " ")
        for key in ["space: play/pause", "[ ]: speed", "+ -: volume", "← →: turn", "↑ ↓: up/down", "m: double push"] {
            #expect(help.contains(key), "sim --help does not list \(key)")
        }
    }
}
