import SegmanceAppliance
import SegmanceAudio
import SegmanceControls
import SegmanceCore
import SegmanceLibrary

/// Runs the appliance in virtual time: the scenario's inputs at their exact times, the
/// audio rendered period by period, every frame logged. Faster than real time and
/// deterministic: the same inputs give the same bytes.
public struct TwinRun {
    public var configuration: Appliance.Configuration
    /// The board the scenario's actions are played on; its control map is the appliance's.
    public var board = VirtualBoard()
    public var periodFrames: Int = 128
    /// Folder that relative `stick` paths in the scenario are resolved against.
    public var baseDirectory: String = "."
    /// The library to play from and import into; nil: a fresh temporary one for the run,
    /// so that every run starts from the same empty library.
    public var library: Library?
    /// Keep every audio command with the output frame it applied at (`Output.commands`).
    public var recordsCommands = false

    public init(configuration: Appliance.Configuration = .init()) {
        self.configuration = configuration
    }

    /// What a run produced.
    public struct Output {
        public var frames: FrameLog
        public var renderedFrames: Int64
        public var log: [String]
        /// The appliance's state when the run ended.
        public var finalState: PlayerState
        /// With `recordsCommands`: every command the audio side received and its frame.
        public var commands: [TimedCommand] = []
        /// With `recordsCommands`: the appliance as the run left it. Holding it keeps the
        /// decoded audio that `commands` point into alive, so they can be replayed.
        public var appliance: Appliance?
    }

    /// Runs `scenario`, with `stick` inserted and imported at time 0 if given; audio goes to
    /// `sink`. Scenario `stick DIR` actions insert a stick as a mount would: the appliance
    /// offers it (push to import) or imports it at once with *Auto import* on.
    public func run(_ scenario: Scenario, stick: String?,
                    sink: (UnsafePointer<Float>, Int) -> Void) throws -> Output {
        var configuration = self.configuration
        configuration.controlMap = board.controlMap
        let twin = TwinAudio(sampleRate: configuration.sampleRate, config: configuration.render)
        twin.recordsCommands = recordsCommands
        let appliance = try Appliance(configuration, audio: twin, library: library)
        let log = LogLines()
        appliance.log = { log.lines.append($0) }
        let rate = Int64(configuration.sampleRate)
        func time(ofFrame f: Int64) -> Int64 { f * 1_000_000_000 / rate }

        if let stick {
            appliance.importStick(resolve(stick))
        }

        // Every scheduled input, in time order (stable for equal times).
        enum Input {
            case edge(Edge), stick(String, label: String?), unstick, speed(Int), latency(Int), edit(Edit), export(
                String)
        }
        var inputs: [(time: Int64, order: Int, input: Input)] = []
        for step in scenario.steps {
            switch step.action {
            case .stick(let path, let label): inputs.append((step.time, inputs.count, .stick(path, label: label)))
            case .unstick: inputs.append((step.time, inputs.count, .unstick))
            case .export(let path): inputs.append((step.time, inputs.count, .export(path)))
            case .speed(let n): inputs.append((step.time, inputs.count, .speed(n)))
            case .latency(let n): inputs.append((step.time, inputs.count, .latency(n)))
            case .edit(let edit): inputs.append((step.time, inputs.count, .edit(edit)))
            default:
                for e in board.edges(for: step.action, at: step.time) {
                    inputs.append((e.timestamp, inputs.count, .edge(e)))
                }
            }
        }
        inputs.sort { ($0.time, $0.order) < ($1.time, $1.order) }

        let end = scenario.duration
        let totalFrames = (end * rate + 999_999_999) / 1_000_000_000
        let buffer = UnsafeMutablePointer<Float>.allocate(capacity: periodFrames * 2)
        defer { buffer.deallocate() }
        var frames = FrameLog()
        var next = 0
        var handled = 0
        var frame: Int64 = 0
        frames.record(appliance.frame, at: 0)
        while frame < totalFrames {
            let now = time(ofFrame: frame)
            while next < inputs.count, inputs[next].time <= now {
                let item = inputs[next]
                next += 1
                switch item.input {
                case .edge(let e): appliance.edge(e)
                case .stick(let path, let label):
                    appliance.advance(to: item.time)
                    appliance.stickInserted(resolve(path), label: label)
                case .unstick:
                    appliance.advance(to: item.time)
                    appliance.removeStick()
                case .speed(let n):
                    appliance.advance(to: item.time)
                    let detents = (n - appliance.state.speedPercent) / Rules.speedStep
                    if detents != 0 { appliance.send(.encoderTurnedHolding(.loop, detents)) }
                case .latency(let n):
                    twin.latencyFrames = Int64(n)
                case .edit(let edit):
                    appliance.advance(to: item.time)
                    appliance.control(.editRequested(edit), at: item.time)
                case .export(let path):
                    appliance.advance(to: item.time)
                    appliance.saveToStick(into: resolve(path))
                }
            }
            appliance.advance(to: now)
            // What the inputs changed shows before the audio side answers, as on the device
            // (marking B shows the loop's first pass until the wrap is reported).
            if next > handled { frames.record(appliance.frame, at: now) }
            handled = next
            let count = Int(min(Int64(periodFrames), totalFrames - frame))
            appliance.render(into: buffer, frames: count)
            sink(buffer, count)
            frame += Int64(count)
            frames.record(appliance.frame, at: time(ofFrame: frame))
        }
        return Output(frames: frames, renderedFrames: frame, log: log.lines, finalState: appliance.state,
                      commands: twin.sentCommands, appliance: recordsCommands ? appliance : nil)
    }

    private func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return baseDirectory + "/" + path
    }
}


/// Log lines collected from the appliance's log closure.
private final class LogLines {
    var lines: [String] = []
}
