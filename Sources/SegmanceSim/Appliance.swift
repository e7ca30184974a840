import SegmanceAudio
import SegmanceControls
import SegmanceCore
import SegmanceMedia
import SegmanceScreen

/// The appliance's wiring: one owner of the state that takes events from every source in
/// order, runs the reducer and carries out its effects. The twin drives it in virtual time;
/// the interactive simulator in real time. Not thread-safe: one control loop owns it.
public final class Appliance {
    public struct Configuration: Sendable {
        public var sampleRate: Int = 48_000
        public var columns: Int = 16
        public var rows: Int = 2
        public var settings = Settings()
        public var board = VirtualBoard()
        public var render = RenderConfig()
        public init() {}
    }

    public let configuration: Configuration
    public private(set) var state: PlayerState
    private var controls: Controls
    /// The audio side: the twin's direct renderer or the real-time engine.
    public let audio: AudioEngine
    /// Decoded PCM by reference. Buffers are never dropped while the appliance lives,
    /// because the render side may still hold a pointer into any of them.
    private var media: [AudioReference: PCMBuffer] = [:]
    /// Where log lines go (stderr in the CLI). Not part of the twin's deterministic output.
    public var log: (String) -> Void = { _ in }

    /// An appliance whose audio side is `audio`, or the twin's direct renderer when nil.
    public init(_ configuration: Configuration, audio: AudioEngine? = nil) {
        self.configuration = configuration
        state = PlayerState(sampleRate: Int64(configuration.sampleRate), settings: configuration.settings)
        controls = Controls(map: configuration.board.controlMap)
        self.audio = audio ?? TwinAudio(sampleRate: configuration.sampleRate, config: configuration.render)
        send(.booted)
    }

    /// The screen as the LCD would show it now.
    public var frame: Frame {
        Screen.render(state, columns: configuration.columns, rows: configuration.rows)
    }

    /// The earliest time the controls have something pending (long press, double-press window).
    public var nextControlDeadline: Int64? { controls.nextDeadline }

    /// Runs the reducer on one event and carries out its effects.
    public func send(_ event: Event) {
        for effect in Player.reduce(&state, event) {
            switch effect {
            case .audio(let command, let epoch):
                perform(command, epoch: epoch)
            case .persist, .importStick, .cancelImport:
                break
            }
        }
    }

    /// A raw input edge from a line of the board.
    public func edge(_ edge: Edge) {
        for event in controls.advance(to: edge.timestamp) { send(event) }
        for event in controls.handle(edge) { send(event) }
    }

    /// An event straight from a key (the terminal, an evdev device with kernel debounce).
    public func key(_ button: Button, pressed: Bool, at time: Int64) {
        for event in controls.keyChanged(button, pressed: pressed, timestamp: time) { send(event) }
    }

    /// Moves the monotonic clock: pending gestures resolve, notices expire.
    public func advance(to now: Int64) {
        for event in controls.advance(to: now) { send(event) }
        send(.clock(now))
    }

    /// Renders one period with the twin's renderer, then feeds the reports to the core.
    public func render(into buffer: UnsafeMutablePointer<Float>, frames: Int) {
        guard let twin = audio as? TwinAudio else { preconditionFailure("render(into:) drives the twin's audio only") }
        twin.render(into: buffer, frames: frames)
        pollAudio()
    }

    /// Feeds what the audio side reported, and where it is, to the core.
    public func pollAudio() {
        // Reports are taken out first: handling one may send the audio side new commands.
        for report in audio.takeReports() { send(.audio(report)) }
        let (frame, epoch) = audio.position
        send(.audio(AudioReport(epoch: epoch, .position(frame))))
    }

    /// Reads a folder laid out like a USB stick and offers its routines.
    public func insertStick(_ path: String) {
        let content = StickLoader(outputRate: configuration.sampleRate).load(path)
        for (reference, buffer) in content.media { media[reference] = buffer }
        for problem in content.problems { log("stick \(path): \(problem)") }
        send(.notice(Notice(.info, ["Stick found", "\(content.routines.count) routine\(content.routines.count == 1 ? "" : "s")"])))
        for problem in content.problems {
            send(.notice(Notice(.problem, [problem.path, problem.reason], duration: 4_000_000_000)))
        }
        // Routines of the same title are replaced by the stick's; the others stay.
        var routines = state.routines.filter { old in !content.routines.contains { $0.title == old.title } }
        routines += content.routines
        send(.routinesLoaded(routines))
    }

    /// The stick was pulled out. Its routines were already read, so rehearsal goes on.
    public func removeStick() {
        send(.notice(Notice(.info, ["Stick removed"], duration: 1_500_000_000)))
    }

    private func perform(_ command: AudioCommand, epoch: UInt32) {
        let resolved = RenderCommand(command) { part in
            guard let buffer = self.media[part.audio] else { return nil }
            return buffer.slice(start: part.start, length: part.length)
        }
        guard let resolved else {
            log("audio for \(command) is not loaded")
            return
        }
        audio.send(StampedCommand(resolved, epoch: epoch))
    }
}
