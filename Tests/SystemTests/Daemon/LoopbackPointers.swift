/// The snd-aloop card's pointers as the kernel has them at this moment, from
/// `/proc/asound/Loopback/pcm*/sub0/status` (reading it makes the driver bring its pointers
/// up to the current jiffy): what sounds now, in the capture's frames, and how far ahead of
/// it the daemon has written. Read at a button's edge, it says where the daemon's render
/// thread was when the edge was made, without asking the daemon.
struct LoopbackPointers: Equatable {
    /// Frames the capture side (hw:Loopback,1,0) has taken since it started: the index in
    /// `LoopbackCapture` of the frame sounding now.
    var captureFrame: Int64
    /// Frames the daemon has written to hw:Loopback,0,0 that have not sounded yet.
    var queuedFrames: Int64

    /// The capture frame through which the daemon's render thread has rendered.
    var renderedThrough: Int64 { captureFrame + queuedFrames }

    static let playback = "/proc/asound/Loopback/pcm0p/sub0/status"
    static let capture = "/proc/asound/Loopback/pcm1c/sub0/status"

    /// Reads both sides, the playback last (so a period the daemon writes in between counts).
    static func read() throws -> LoopbackPointers {
        let captured = try pointers(capture)
        let played = try pointers(playback)
        return LoopbackPointers(captureFrame: captured.hw, queuedFrames: played.appl - played.hw)
    }

    /// `hw_ptr` and `appl_ptr` of a running substream's status.
    static func pointers(_ path: String) throws -> (hw: Int64, appl: Int64) {
        let text = try Box.read(path)
        var hw: Int64?
        var appl: Int64?
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":", maxSplits: 1).map { $0.filter { $0 != " " && $0 != "\t" } }
            guard parts.count == 2 else { continue }
            if parts[0] == "hw_ptr" { hw = Int64(parts[1]) }
            if parts[0] == "appl_ptr" { appl = Int64(parts[1]) }
        }
        guard let hw, let appl else { throw BoxError("\(path) has no hw_ptr and appl_ptr (not running?): \(text)") }
        return (hw, appl)
    }
}
