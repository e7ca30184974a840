import CharacterDisplay
import Foundation
import Glibc
import SegmanceScreen
import Synchronization

/// What the LCD at 0x27 on i2c-stub shows, followed live: the kernel's smbus_write trace
/// events read from `trace_pipe` on a thread of their own, decoded by `SMBusTrace`, fed to
/// the `HD44780Model`; every screen the model passes through is kept, in order (redraws
/// included: a frame is written cell by cell).
final class LCDTrace: @unchecked Sendable {
    static let tracing = "/sys/kernel/tracing"

    struct Shown: Sendable {
        var rows: [String]
        var time: Int64
    }

    let adapter: Int
    let address: Int
    /// The model, the screens so far, what went wrong, and the glyph set CGRAM held last
    /// (while a set is being loaded CGRAM matches none, and the cells keep their old shapes
    /// until the load ends: the frame after it is what shows).
    private let state: Mutex<(model: HD44780Model, screens: [Shown], problem: String?, glyphs: GlyphSet)>
    private let stopping = Atomic<Bool>(false)
    private let running = Atomic<Bool>(false)
    private let columns: Int
    private let rows: Int

    /// Empties the trace buffer and starts reading it.
    init(adapter: Int, address: Int, pinMap: PCF8574PinMap, columns: Int, rows: Int) throws {
        self.adapter = adapter
        self.address = address
        self.columns = columns
        self.rows = rows
        state = Mutex((HD44780Model(pinMap: pinMap, columns: columns, rows: rows), [], nil, .symbols))
        try Box.truncate(Self.tracing + "/trace")
        let fd = open(Self.tracing + "/trace_pipe", O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { throw BoxError("cannot open trace_pipe: \(String(cString: strerror(errno)))") }
        running.store(true, ordering: .releasing)
        Thread { [self] in run(fd) }.start()
    }

    deinit { stop() }

    /// Reads what is left in the pipe, then stops.
    func stop() {
        stopping.store(true, ordering: .releasing)
        while running.load(ordering: .acquiring) { Box.hold(milliseconds: 5) }
    }

    private func run(_ fd: Int32) {
        defer {
            close(fd)
            running.store(false, ordering: .releasing)
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var quietAfterStop = false
        while true {
            var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&entry, 1, 50)
            let n = ready > 0 ? read(fd, &chunk, chunk.count) : 0
            if n > 0 {
                pending += chunk[0..<n]
                if let end = pending.lastIndex(of: 10) {
                    let text = String(decoding: pending[...end], as: UTF8.self)
                    pending.removeSubrange(...end)
                    feed(text)
                }
                continue
            }
            // After a stop request, one quiet poll more: what was traced before it is in.
            if stopping.load(ordering: .acquiring) {
                if quietAfterStop { return }
                quietAfterStop = true
            }
        }
    }

    private func feed(_ lines: String) {
        let writes: [SMBusWrite]
        do {
            writes = try SMBusTrace.parse(lines)
        } catch {
            state.withLock { $0.problem = "\(error)" }
            return
        }
        let bytes = SMBusTrace.sentBytes(writes, adapter: adapter, address: address)
        let now = Box.now()
        state.withLock { s in
            for byte in bytes {
                s.model.receive(byte)
                if let set = GlyphSet(patterns: s.model.glyphs) { s.glyphs = set }
                let screen = text(of: s.model, glyphs: s.glyphs)
                if screen != s.screens.last?.rows { s.screens.append(Shown(rows: screen, time: now)) }
            }
        }
    }

    private func text(of model: HD44780Model, glyphs: GlyphSet) -> [String] {
        var frame = Frame(columns: columns, rows: rows)
        frame.cells = model.screen.flatMap { $0 }
        frame.glyphs = glyphs
        return frame.text
    }

    /// Every screen so far, in order.
    var screens: [Shown] { state.withLock { $0.screens } }

    /// The controller's state now (glyphs, display on, backlight).
    var model: HD44780Model { state.withLock { $0.model } }

    /// Why the trace could not be read (events lost, a malformed line), nil while it is fine.
    var problem: String? { state.withLock { $0.problem } }

    /// The first screen after `after` screens that satisfies `matching`, waiting at most
    /// `timeout` seconds; throws with the last screens when none comes.
    @discardableResult
    func expectScreen(_ what: String, timeout: Double, after: Int = 0,
                      _ matching: ([String]) -> Bool) throws -> (index: Int, shown: Shown) {
        if let found = Box.firstNew({ screens }, after: after, timeout: timeout, giveUp: { problem != nil }, { matching($0.rows) }) {
            return (found.index, found.element)
        }
        if let problem { throw BoxError("LCD trace: \(problem)") }
        let last = screens.suffix(4).map { "|" + $0.rows.joined(separator: "|") + "|" }.joined(separator: " ")
        throw BoxError("the LCD did not show \(what) within \(timeout) s; its last screens: \(last)")
    }
}
