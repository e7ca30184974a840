import LinuxSystem
import SegmanceScreen
#if canImport(Glibc)
import Glibc
#endif

/// A client of LCDd (LCDproc's server) over TCP, so every display LCDproc drives can show
/// the appliance's frames. One screen at foreground priority, one string widget a row.
///
/// LCDproc gives clients no custom characters in string widgets, so the CGRAM glyphs are
/// shown by ASCII stand-ins (`glyphText`). Big numbers (the count-in) are LCDproc's own
/// `num` widgets, which LCDd draws with the display's custom characters (its bignum
/// library), as tall as the display; the backlight follows the frame's (`backlight on|off`).
public final class LCDprocClient: CharacterDisplay {
    public var columns: Int { size.columns }
    public var rows: Int { size.rows }
    public let host: String
    public let port: UInt16
    /// What LCDd said in answer to hello ("connect LCDproc 0.5.9 protocol 0.3 lcd wid 16 …").
    public private(set) var greeting = ""
    private var size = (columns: 0, rows: 0)
    /// ASCII for the glyph codes 0...7, and for the full block.
    public var glyphText: [UInt8: UInt8] = [
        Glyph.play.rawValue: UInt8(ascii: ">"), Glyph.pause.rawValue: UInt8(ascii: "="),
        Glyph.stop.rawValue: UInt8(ascii: "#"), Glyph.loop.rawValue: UInt8(ascii: "@"),
        Glyph.markA.rawValue: UInt8(ascii: "A"), Glyph.markB.rawValue: UInt8(ascii: "B"),
        Glyph.halfBar.rawValue: UInt8(ascii: ":"), Glyph.note.rawValue: UInt8(ascii: "*"),
        Glyph.fullBlock: UInt8(ascii: "#"),
    ]
    /// ASCII for the `bigDigits` set's symbols (its numerals go to `num` widgets).
    public var bigDigitText: [UInt8: UInt8] = [
        BigDigitGlyph.loop.rawValue: UInt8(ascii: "@"), BigDigitGlyph.play.rawValue: UInt8(ascii: ">"),
    ]
    private let fd: Int32
    private var buffer: [UInt8] = []
    private var shownRows: [[UInt8]] = []
    /// The `num` widgets shown: (column, digit) each, named n1, n2, ….
    private var shownDigits: [(column: Int, digit: Int)] = []
    private var backlight = true

    /// Connects, says hello, and sets up a screen of `rows` string widgets.
    public init(host: String = "127.0.0.1", port: UInt16 = 13666, timeoutSeconds: Int = 3) throws(LCDprocError) {
        self.host = host
        self.port = port
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw LCDprocError("socket: \(SystemError.text(errno))") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else {
            close(fd)
            throw LCDprocError("\(host) is not an IPv4 address")
        }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let reason = SystemError.text(errno)
            close(fd)
            throw LCDprocError("connect to LCDd at \(host):\(port): \(reason)")
        }
        self.fd = fd
        try send("hello")
        let hello = try readLine()
        guard hello.hasPrefix("connect"), let w = Self.value(after: "wid", in: hello),
              let h = Self.value(after: "hgt", in: hello) else {
            close(fd)
            throw LCDprocError("LCDd at \(host):\(port) answered hello with '\(hello)'")
        }
        greeting = hello
        size = (w, h)
        shownRows = Array(repeating: [], count: h)
        try request("client_set -name Segmance")
        try request("screen_add segmance")
        try request("screen_set segmance -priority foreground -heartbeat off -name Segmance")
        for r in 1...h { try request("widget_add segmance r\(r) string") }
    }

    deinit { close(fd) }

    public func show(_ frame: Frame) throws {
        if frame.backlight != backlight {
            try request("backlight \(frame.backlight ? "on" : "off")")
            backlight = frame.backlight
        }
        let text = frame.glyphs == .bigDigits ? bigDigitText : glyphText
        var digits: [(column: Int, digit: Int)] = []
        var blank: (rows: Range<Int>, columns: Range<Int>)?
        if let number = frame.bigNumber {
            blank = (number.row..<number.row + 2, number.column..<number.column + number.width)
            for (i, ch) in String(number.value).enumerated() {
                digits.append((number.column + i * (3 + BigDigits.gap), ch.wholeNumberValue ?? 0))
            }
        }
        for r in 0..<min(frame.rows, size.rows) {
            let bytes = frame.row(r).prefix(size.columns).enumerated().map { c, b in
                blank.map { $0.rows.contains(r) && $0.columns.contains(c) } == true ? 0x20 : (text[b] ?? Self.safe(b))
            }
            guard bytes != shownRows[r] else { continue }
            try request("widget_set segmance r\(r + 1) 1 \(r + 1) {\(String(decoding: bytes, as: UTF8.self))}")
            shownRows[r] = bytes
        }
        guard digits.map(\.column) != shownDigits.map(\.column) || digits.map(\.digit) != shownDigits.map(\.digit) else { return }
        for i in digits.count..<max(digits.count, shownDigits.count) { try request("widget_del segmance n\(i + 1)") }
        for i in shownDigits.count..<max(shownDigits.count, digits.count) { try request("widget_add segmance n\(i + 1) num") }
        for (i, d) in digits.enumerated() { try request("widget_set segmance n\(i + 1) \(d.column + 1) \(d.digit)") }
        shownDigits = digits
    }

    /// Characters LCDproc's parser would take as syntax are replaced.
    private static func safe(_ b: UInt8) -> UInt8 {
        switch b {
        case UInt8(ascii: "{"): UInt8(ascii: "(")
        case UInt8(ascii: "}"): UInt8(ascii: ")")
        case UInt8(ascii: "\\"): UInt8(ascii: "/")
        case 0x20...0x7E: b
        default: UInt8(ascii: "?")
        }
    }

    /// Sends a command and waits for "success"; "huh?" becomes an error with LCDd's words.
    private func request(_ command: String) throws(LCDprocError) {
        try send(command)
        while true {
            let line = try readLine()
            if line == "success" { return }
            if line.hasPrefix("huh?") { throw LCDprocError("LCDd refused '\(command)': \(line)") }
            // "listen …", "ignore …" and other notifications: not an answer.
        }
    }

    private func send(_ line: String) throws(LCDprocError) {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { throw LCDprocError("write to LCDd at \(host):\(port): \(SystemError.text(errno))") }
            sent += n
        }
    }

    private func readLine() throws(LCDprocError) -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            var chunk = [UInt8](repeating: 0, count: 512)
            let n = recv(fd, &chunk, chunk.count, 0)
            guard n > 0 else {
                throw LCDprocError(n == 0 ? "LCDd at \(host):\(port) closed the connection"
                                          : "read from LCDd at \(host):\(port): \(SystemError.text(errno))")
            }
            buffer += chunk[0..<n]
        }
    }

    private static func value(after key: String, in line: String) -> Int? {
        let words = line.split(separator: " ")
        guard let i = words.firstIndex(of: Substring(key)), i + 1 < words.count else { return nil }
        return Int(words[i + 1])
    }
}

/// A failure talking to LCDd.
public struct LCDprocError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}
