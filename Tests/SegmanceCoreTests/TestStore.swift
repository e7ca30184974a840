import Testing
@testable import SegmanceCore

/// Sends events to the reducer and asserts the whole resulting state and every effect,
/// in the manner of The Composable Architecture's TestStore.
struct TestStore {
    var state: PlayerState

    init(_ state: PlayerState) { self.state = state }

    /// Sends `event`; the state must then equal the previous state changed by `update`,
    /// and the effects must equal `effects` exactly.
    mutating func send(_ event: Event, _ effects: [Effect] = [],
                       sourceLocation: SourceLocation = #_sourceLocation,
                       _ update: (inout PlayerState) -> Void = { _ in }) {
        var expected = state
        update(&expected)
        let actual = Rules.reduce(&state, event)
        #expect(actual == effects, "effects of \(event)", sourceLocation: sourceLocation)
        #expect(state == expected, "state after \(event)", sourceLocation: sourceLocation)
    }
}

enum Fixture {
    static let rate: Int64 = 48_000
    static func s(_ seconds: Double) -> FramePosition { FramePosition(seconds * Double(rate)) }

    static func part(_ n: Int, seconds: Double = 60, loop: ABLoop? = nil, moves: [Move] = []) -> Part {
        Part(title: "Part \(n)", audio: AudioReference("song\(n).wav"), length: s(seconds),
             moves: moves, savedLoop: loop)
    }

    static let salsa = Routine(title: "Salsa", subtitle: "Shines", parts: [part(1), part(2), part(3)])
    static let tango = Routine(title: "Tango", countdown: 5, parts: [part(4, seconds: 30)])

    /// A state with routines loaded, the first part selected, stopped at 0.
    static func loaded(_ settings: Settings = Settings(), routines: [Routine] = [salsa, tango]) -> PlayerState {
        var state = PlayerState(settings: settings)
        _ = Rules.reduce(&state, .routinesLoaded(routines))
        _ = Rules.reduce(&state, .clock(10_000_000_000))
        return state
    }

    /// The library write for "playback is at part `part` of `routine`, at `position`".
    static func resume(_ routine: Routine, _ part: Int, at position: FramePosition = 0) -> Effect {
        .persist(.resume(ResumePoint(routine: routine.title, part: part, partTitle: routine.parts[part].title,
                                     position: position)))
    }

    static func report(_ state: PlayerState, _ kind: AudioReport.Kind) -> Event {
        .audio(AudioReport(epoch: state.epoch, kind))
    }
}
