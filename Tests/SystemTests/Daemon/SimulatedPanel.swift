import Glibc
import SegmanceBoard

/// The buttons and the encoder of board/sim-vm.toml from the outside: gpio-sim's pulls,
/// written through sysfs as fingers would close and open the contacts (active low: a
/// closed contact pulls the line down). The daemon holds the lines, so nothing here reads
/// them; each stimulus says when it happened and how long its bursts of chatter took.
struct SimulatedPanel {
    let chip: String
    let offsets: [String: Int]
    /// With the loopback cable's offset (`readPointers()`), the card's pointers are read
    /// around each deciding edge (`Played.pointers`).
    private(set) var cableOffset: Int64?
    var readsPointers: Bool { cableOffset != nil }

    /// Reads the loopback card's pointers around each deciding edge from now on (the
    /// daemon's playback and the capture running).
    mutating func readPointers() throws {
        cableOffset = try LoopbackPointers.cableOffset()
    }

    /// What a stimulus was.
    struct Played {
        /// Monotonic time just before the last change was written (the edge that decides:
        /// a press is recognised when the button comes up).
        var lastChange: Int64
        /// How long writing that last change took.
        var lastWrite: Int64
        /// The longest burst of chatter, first write to last.
        var longestChatter: Int64
        /// Monotonic time just before the first write of the change the daemon acts on (a
        /// button coming up: its debouncer takes the first change of a burst at once; an
        /// encoder's fourth step), 0 for a stimulus the daemon does not act on alone.
        var edge: Int64 = 0
        /// The loopback card's pointers read just before that write (with `readsPointers`).
        var pointers: LoopbackPointers?
        /// The same, read just after the writes of that change: the edge was made between the
        /// two reads (writing a sysfs pull can take a period on a loaded VM).
        var pointersAfter: LoopbackPointers?
        /// The same, read just before the first write of a press going down (where a
        /// control that acts where the music was heard hears it).
        var downPointers: LoopbackPointers?
    }

    init(profile: BoardProfile) throws {
        guard let chip = getenv("SEGMANCE_BOX_GPIO_CHIP").map({ String(cString: $0) }) else {
            throw BoxError("SEGMANCE_BOX_GPIO_CHIP is not set (Tests/System/guest/hardware.sh exports it)")
        }
        guard let gpio = profile.gpio else { throw BoxError("the profile has no [gpio]") }
        var offsets: [String: Int] = [:]
        for (button, line) in gpio.buttons { if case .offset(let o) = line { offsets[button.rawValue] = o } }
        if case .offset(let a)? = gpio.encoderA, case .offset(let b)? = gpio.encoderB {
            offsets["encoder_a"] = a
            offsets["encoder_b"] = b
        }
        self.chip = chip
        self.offsets = offsets
    }

    private func set(_ control: String, closed: Bool) throws {
        guard let offset = offsets[control] else { throw BoxError("no line for \(control) in the profile") }
        try Box.write(closed ? "pull-down" : "pull-up", to: "/sys/bus/gpio/devices/\(chip)/sim_gpio\(offset)/pull")
    }

    /// Notes the deciding edge, about to be written.
    private func deciding(_ played: inout Played) throws {
        if let cableOffset { played.pointers = try LoopbackPointers.read(cableOffset: cableOffset) }
        played.edge = Box.now()
    }

    /// Notes the deciding edge, written.
    private func decided(_ played: inout Played) throws {
        if let cableOffset { played.pointersAfter = try LoopbackPointers.read(cableOffset: cableOffset) }
    }

    /// Changes with chatter: three writes back to back, ending at `closed`; `decides` when
    /// the daemon acts on this change.
    private func chatter(_ control: String, closed: Bool, decides: Bool = false, into played: inout Played) throws {
        if decides { try deciding(&played) }
        let start = Box.now()
        try set(control, closed: closed)
        try set(control, closed: !closed)
        played.lastChange = Box.now()
        try set(control, closed: closed)
        let end = Box.now()
        played.lastWrite = end - played.lastChange
        played.longestChatter = max(played.longestChatter, end - start)
        if decides { try decided(&played) }
    }

    /// A press of `milliseconds` with contact bounce on both edges (`bounce`), or clean.
    @discardableResult
    func tap(_ control: String, milliseconds: Int = 80, bounce: Bool = true) throws -> Played {
        var played = Played(lastChange: 0, lastWrite: 0, longestChatter: 0)
        if let cableOffset { played.downPointers = try LoopbackPointers.read(cableOffset: cableOffset) }
        if bounce { try chatter(control, closed: true, into: &played) } else { try set(control, closed: true) }
        Box.hold(milliseconds: milliseconds)
        if bounce {
            try chatter(control, closed: false, decides: true, into: &played)
        } else {
            try deciding(&played)
            played.lastChange = Box.now()
            try set(control, closed: false)
            played.lastWrite = Box.now() - played.lastChange
            try decided(&played)
        }
        return played
    }

    /// A button pressed and held (with contact bounce), until `release`.
    @discardableResult
    func press(_ control: String) throws -> Played {
        var played = Played(lastChange: 0, lastWrite: 0, longestChatter: 0)
        try chatter(control, closed: true, into: &played)
        return played
    }

    /// A button held with `press` let go (with contact bounce).
    @discardableResult
    func release(_ control: String) throws -> Played {
        var played = Played(lastChange: 0, lastWrite: 0, longestChatter: 0)
        try chatter(control, closed: false, decides: true, into: &played)
        return played
    }

    /// One detent of the encoder (EC11: four quadrature steps, A leading B clockwise), the
    /// first contact chattering, `step` ms between steps.
    @discardableResult
    func turn(clockwise: Bool, step: Int = 8) throws -> Played {
        let (first, second) = clockwise ? ("encoder_a", "encoder_b") : ("encoder_b", "encoder_a")
        var played = Played(lastChange: 0, lastWrite: 0, longestChatter: 0)
        try chatter(first, closed: true, into: &played)
        for (control, closed) in [(second, true), (first, false), (second, false)] {
            Box.hold(milliseconds: step)
            if control == second && !closed { try deciding(&played) }
            played.lastChange = Box.now()
            try set(control, closed: closed)
            played.lastWrite = Box.now() - played.lastChange
            if control == second && !closed { try decided(&played) }
        }
        return played
    }
}
