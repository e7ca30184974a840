import SegmanceCore
#if canImport(Glibc)
import Glibc
#endif

/// The terminal in non-canonical mode, read without blocking. A terminal has no key-up,
/// so a key is a whole press: lowercase for a press, the shifted key for a long press.
final class RawTerminal {
    enum Key: Equatable {
        case event(Event)
        case quit
    }

    /// Every gesture's keys and what they do: the simulator's footer and `sim --help`.
    static let keys: [(keys: String, does: String)] = [
        ("space", "play/pause"), ("s", "stop"), (", .", "part"), ("< >", "routine"),
        ("l", "loop A/B"), ("L", "part loop"), ("[ ]", "speed"), ("+ -", "volume"),
        ("\u{2190} \u{2192}", "turn (seek)"), ("\u{2191} \u{2193}", "up/down"), ("enter", "push (menu)"),
        ("backspace", "long push (back)"), ("m", "double push (moves)"), ("q", "quit"),
    ]

    /// `keys` as lines of at most `width` characters.
    static func help(width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for (key, does) in keys {
            let item = key + " " + does
            if !line.isEmpty, line.count + 3 + item.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : "   ") + item
        }
        return lines + (line.isEmpty ? [] : [line])
    }

    private var saved = termios()
    private let isTerminal: Bool

    init() {
        isTerminal = isatty(STDIN_FILENO) == 1
        guard isTerminal else { return }
        tcgetattr(STDIN_FILENO, &saved)
        var raw = saved
        raw.c_lflag &= ~tcflag_t(ICANON | ECHO)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        tcsetattr(STDIN_FILENO, TCSANOW, &raw)
        Console.out("\u{1B}[?25l") // hide the cursor
    }

    func restore() {
        Console.out("\u{1B}[?25h")
        if isTerminal { tcsetattr(STDIN_FILENO, TCSANOW, &saved) }
    }

    /// Keys typed since the last call, decoded (`decode`).
    func pendingKeys(upMovesBack: Bool) -> [Key] {
        var fds = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&fds, 1, 0) > 0 else { return [] }
        var bytes = [UInt8](repeating: 0, count: 64)
        let n = read(STDIN_FILENO, &bytes, bytes.count)
        guard n > 0 else { return n == 0 && !isTerminal ? [.quit] : [] }
        return Self.decode(Array(bytes[0..<n]), upMovesBack: upMovesBack)
    }

    /// The events `bytes` type. ← → turn the encoder back and on. ↑ ↓ move the way they
    /// point: in a list (`upMovesBack`: the menu's lists, the moves view) ↑ goes to the row
    /// above, a turn back; elsewhere ↑ turns on (a value up, a seek forward).
    static func decode(_ bytes: [UInt8], upMovesBack: Bool) -> [Key] {
        var keys: [Key] = []
        var i = 0
        while i < bytes.count {
            let b = bytes[i]
            if b == 0x1B, i + 2 < bytes.count, bytes[i + 1] == UInt8(ascii: "[") {
                switch bytes[i + 2] {
                case UInt8(ascii: "C"): keys.append(.event(.encoderTurned(1)))
                case UInt8(ascii: "D"): keys.append(.event(.encoderTurned(-1)))
                case UInt8(ascii: "A"): keys.append(.event(.encoderTurned(upMovesBack ? -1 : 1)))
                case UInt8(ascii: "B"): keys.append(.event(.encoderTurned(upMovesBack ? 1 : -1)))
                default: break
                }
                i += 3
                continue
            }
            i += 1
            switch Character(Unicode.Scalar(b)) {
            case " ": keys.append(.event(.buttonPressed(.play)))
            case "s", "S": keys.append(.event(.buttonLongPressed(.play)))
            case ",": keys.append(.event(.buttonPressed(.prev)))
            case ".": keys.append(.event(.buttonPressed(.next)))
            case "<": keys.append(.event(.buttonLongPressed(.prev)))
            case ">": keys.append(.event(.buttonLongPressed(.next)))
            case "l": keys.append(.event(.buttonPressed(.loop)))
            case "L": keys.append(.event(.buttonLongPressed(.loop)))
            case "\r", "\n": keys.append(.event(.buttonPressed(.select)))
            case "\u{7F}", "\u{08}": keys.append(.event(.buttonLongPressed(.select)))
            case "m": keys.append(.event(.buttonDoublePressed(.select)))
            case "+", "=": keys.append(.event(.encoderTurnedHolding(.play, 1)))
            case "-": keys.append(.event(.encoderTurnedHolding(.play, -1)))
            // LOOP held while the encoder turns: the part's speed.
            case "]": keys.append(.event(.encoderTurnedHolding(.loop, 1)))
            case "[": keys.append(.event(.encoderTurnedHolding(.loop, -1)))
            case "q", "\u{03}": keys.append(.quit)
            default: break
            }
        }
        return keys
    }
}
