import SegmanceAppliance
import SegmanceControls
import SegmanceCore

/// The board's controls in the loop (`BoardInputs`: GPIO lines, input devices and their
/// hotplug): what is ready is read, pending gestures resolve on their deadline (debounce,
/// long press, the double-press window), and each event goes to the appliance with the
/// instant it acted, logged as it goes.
final class InputSource: LoopSource {
    private let inputs: BoardInputs
    private let context: LoopContext

    init(_ inputs: BoardInputs, context: LoopContext) {
        self.inputs = inputs
        self.context = context
    }

    var descriptors: [(fd: Int32, events: Int16)] { inputs.descriptors.map { ($0.fd, DaemonLoop.readable) } }

    func deadline(now: Int64) -> Int64? { inputs.nextDeadline }

    func handle(ready: [Int32], now: Int64) {
        for fd in ready {
            // A device that went meanwhile (read before this one) is no longer listed.
            guard let source = inputs.descriptors.first(where: { $0.fd == fd })?.source else { continue }
            dispatch(inputs.read(source, now: now))
        }
        dispatch(inputs.advance(to: now))
    }

    /// The devices already present (at start).
    func start(now: Int64) {
        dispatch(inputs.start(now: now))
    }

    /// Hands the events to the appliance; each control is logged with where the music was
    /// when it acted: the place an A or B mark, a seek or a part change takes effect, for
    /// the journal (and the system tests' twin).
    private func dispatch(_ events: [TimedEvent]) {
        let log = context.log
        context.appliance.take(events) { timed, heard in
            let state = context.appliance.state
            guard let line = Self.controlLine(timed.event, state) else { return }
            log.info(line)
            if let edge = Self.edgeLine(timed, heard: heard, state) { log.info(edge) }
        }
    }

    /// "press loop", "turn -1 holding play": the control an event is; nil for anything else.
    static func control(_ event: Event) -> String? {
        switch event {
        case .buttonPressed(let button): "press \(button.rawValue)"
        case .buttonLongPressed(let button): "long press \(button.rawValue)"
        case .buttonDoublePressed(let button): "double press \(button.rawValue)"
        case .encoderTurned(let detents): "turn \(detents > 0 ? "+" : "")\(detents)"
        case .encoderTurnedHolding(let button, let detents):
            "turn \(detents > 0 ? "+" : "")\(detents) holding \(button.rawValue)"
        default: nil
        }
    }

    /// "control: press loop at part 1 frame 96000 (playing)" for a control event, before
    /// the reducer sees it; nil for anything else.
    static func controlLine(_ event: Event, _ state: PlayerState) -> String? {
        guard let control = control(event) else { return nil }
        let transport: String
        switch state.transport {
        case .stopped: transport = "stopped"
        case .paused: transport = "paused"
        case .countingDown(let countdown): transport = "counting down \(countdown.remaining)"
        case .playing: transport = "playing"
        }
        return "control: \(control) at part \(state.partIndex + 1) frame \(state.position) (\(transport))"
    }

    /// "control edge: press loop at 12345678901234 ns heard part 1 frame 95000" after a
    /// control's `controlLine`: the instant it acted (CLOCK_MONOTONIC ns: a press's down
    /// edge, a detent) and the source frame sounding then that the control acts at
    /// ("heard none" when nothing was playing or the audio side could not say; the control
    /// then acts at the position of the line before).
    static func edgeLine(_ timed: TimedEvent, heard: FramePosition?, _ state: PlayerState) -> String? {
        guard let control = control(timed.event) else { return nil }
        let heardText = heard.map { "part \(state.partIndex + 1) frame \($0)" } ?? "none"
        return "control edge: \(control) at \(timed.timestamp) ns heard \(heardText)"
    }
}
