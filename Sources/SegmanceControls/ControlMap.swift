import SegmanceCore

/// Which input line is which control, and how the controls are timed. Comes from the
/// board profile; no pin number is built in.
public struct ControlMap: Equatable, Sendable {
    /// Button lines: GPIO line offset -> logical button.
    public var buttons: [Int: Button]
    /// The quadrature encoder, if the board has one on GPIO lines.
    public var encoder: EncoderLines?
    /// Buttons that recognise a double press. Only these wait for the double-press window
    /// before reporting a single press; every other button reports at its release. The encoder's
    /// push (moves view) and PREV (*Again*: back to where the last play started).
    public var doublePress: Set<Button>
    /// Buttons that, held while the encoder turns, make a chord: the detents come as
    /// `encoderTurnedHolding(button, n)` and the button reports no press of its own; their
    /// long press is reported at the release. PLAY held and the encoder turned is the volume.
    public var chords: Set<Button>
    public var timing: Timing
    /// Encoder acceleration, by the time since the previous detent in the same direction.
    public var acceleration: [AccelerationStep]

    public init(buttons: [Int: Button], encoder: EncoderLines? = nil,
                doublePress: Set<Button> = [.select, .prev], chords: Set<Button> = [], timing: Timing = Timing(),
                acceleration: [AccelerationStep] = AccelerationStep.defaultTable) {
        self.buttons = buttons
        self.encoder = encoder
        self.doublePress = doublePress
        self.chords = chords
        self.timing = timing
        self.acceleration = acceleration
    }

    /// The chords of the appliance's default map: PLAY held, encoder turned (the volume);
    /// LOOP held, encoder turned (the speed).
    public static let volumeChord: Set<Button> = [.play, .loop]

    /// What is wrong with this map, one sentence each; empty when it is usable.
    public var problems: [String] {
        var found: [String] = []
        if let encoder {
            if encoder.a == encoder.b {
                found.append("encoder lines A and B are both line \(encoder.a)")
            }
            for line in Set([encoder.a, encoder.b]).sorted() {
                if let button = buttons[line] {
                    found.append("line \(line) is both an encoder line and the \(button.rawValue) button")
                }
            }
        }
        if timing.debounce < 0 { found.append("debounce must not be negative") }
        if timing.longPress <= timing.debounce {
            found.append("long press (\(timing.longPress) ns) must be longer than debounce (\(timing.debounce) ns)")
        }
        if timing.doublePressWindow <= 0 { found.append("double-press window must be positive") }
        if acceleration.contains(where: { $0.multiplier < 1 }) {
            found.append("acceleration multipliers must be at least 1")
        }
        return found
    }

    /// Timing of the buttons, in nanoseconds.
    public struct Timing: Equatable, Sendable {
        /// After an accepted change, further changes of the line are ignored this long.
        public var debounce: Int64
        /// Held this long, a press becomes a long press.
        public var longPress: Int64
        /// A second press starting within this time after the first release is a double press.
        public var doublePressWindow: Int64

        public init(debounce: Int64 = 10_000_000, longPress: Int64 = 600_000_000,
                    doublePressWindow: Int64 = 300_000_000) {
            self.debounce = debounce
            self.longPress = longPress
            self.doublePressWindow = doublePressWindow
        }
    }
}

/// The two GPIO lines of a quadrature encoder and its mechanics.
///
/// Direction: clockwise (+) is "A leads B" — the Gray sequence (A,B) 00 → 10 → 11 → 01 → 00.
/// If a board's encoder counts the wrong way, swap `a` and `b` in its profile.
public struct EncoderLines: Equatable, Sendable {
    public var a: Int
    public var b: Int
    public var stepsPerDetent: StepsPerDetent
    /// The level of both lines at a detent, for encoders with 4 steps a detent.
    public var rest: RestState

    public init(a: Int, b: Int, stepsPerDetent: StepsPerDetent = .four, rest: RestState = .low) {
        self.a = a
        self.b = b
        self.stepsPerDetent = stepsPerDetent
        self.rest = rest
    }
}

/// Quadrature transitions per mechanical detent.
public enum StepsPerDetent: Int, CaseIterable, Equatable, Sendable {
    /// Every valid transition is a detent.
    case one = 1
    /// Detents rest at both 00 and 11.
    case two = 2
    /// A full Gray cycle per detent; one rest state.
    case four = 4
}

/// Where an encoder with 4 steps per detent rests: both contacts open (00) or closed (11).
public enum RestState: Equatable, Sendable {
    case low, high

    /// The rest state as a quadrature state `A<<1 | B`.
    public var state: UInt8 { self == .low ? 0b00 : 0b11 }
}

/// One row of the acceleration table: a detent that comes less than `below` ns after the
/// previous detent in the same direction counts `multiplier` times.
public struct AccelerationStep: Equatable, Sendable {
    public var below: Int64
    public var multiplier: Int

    public init(below: Int64, multiplier: Int) {
        self.below = below
        self.multiplier = multiplier
    }

    /// < 30 ms ×4, < 60 ms ×2, slower ×1.
    public static let defaultTable = [
        AccelerationStep(below: 30_000_000, multiplier: 4),
        AccelerationStep(below: 60_000_000, multiplier: 2),
    ]
}
