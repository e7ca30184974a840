import LinuxSystem
import SegmanceAppliance

/// The audio side in the loop: its wake (drained before what it reported is read, not
/// after: a wake that comes meanwhile, a report or the speed's stretchers made, is then not
/// lost), the core's clock moved and the audio's reports fed to the appliance at the top of
/// every pass, and the lines it wants logged. First of the loop's sources: the time first,
/// so a notice that what follows shows lasts its full time; then what the audio side
/// reported, so a control acts at the position just played.
final class AudioSource: LoopSource {
    private let audio: DaemonAudio
    private let context: LoopContext

    init(_ audio: DaemonAudio, context: LoopContext) {
        self.audio = audio
        self.context = context
    }

    var descriptors: [(fd: Int32, events: Int16)] {
        audio.wakeDescriptor.map { [($0, DaemonLoop.readable)] } ?? []
    }

    /// Without a wake descriptor, looked at every `Daemon.audioPollNanoseconds`.
    func deadline(now: Int64) -> Int64? {
        audio.wakeDescriptor == nil ? now + Daemon.audioPollNanoseconds : nil
    }

    func handle(ready: [Int32], now: Int64) {
        for fd in ready { EventDescriptor.take(fd) }
        context.appliance.send(.clock(context.core(now)))
        context.appliance.pollAudio()
    }
}

/// The lines the audio side wants logged (xruns, scheduling granted, the stretchers made),
/// at their priority; after the sources that send it commands, as its lines come from them.
final class AudioLogSource: LoopSource {
    private let audio: DaemonAudio
    private let log: Log

    init(_ audio: DaemonAudio, log: Log) {
        self.audio = audio
        self.log = log
    }

    func handle(ready: [Int32], now: Int64) { drain() }

    func drain() {
        for line in audio.takeLog() { log(line.priority, line.text) }
    }
}
