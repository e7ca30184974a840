/// The snd-aloop card's pointers as the kernel has them at this moment, from
/// `/proc/asound/Loopback/pcm*/sub0/status` (reading it makes the driver bring its pointers
/// up to the current jiffy): what sounds now, in the capture's frames, and how far the
/// daemon has written. Read at a button's edge, it says where the daemon's render thread
/// was when the edge was made, without asking the daemon.
struct LoopbackPointers: Equatable {
    /// Frames the capture side (hw:Loopback,1,0) has taken since it started: the index in
    /// `LoopbackCapture` of the frame sounding now (a jiffy's step of the driver's timer
    /// behind it at most: 192 frames at HZ=250).
    var captureFrame: Int64
    /// The capture frame through which the daemon's render thread has rendered: the
    /// playback's `appl_ptr` (exact: the frames the daemon has written) moved into the
    /// capture's frames by the cable's offset.
    var renderedThrough: Int64
    /// CLOCK_MONOTONIC ns just before and just after the capture's status was read: the
    /// driver brought `captureFrame` up to its current jiffy at an instant between the two.
    var captureReadStart: Int64 = 0
    var captureReadEnd: Int64 = 0

    static let playback = "/proc/asound/Loopback/pcm0p/sub0/status"
    static let capture = "/proc/asound/Loopback/pcm1c/sub0/status"

    /// The capture's `hw_ptr` minus the playback's at the same instant. snd-aloop moves the
    /// two ends of its cable together, so this stays the same while both run; read one
    /// after the other, the playback's may have moved a jiffy on (192 frames) and the
    /// difference comes out smaller, never larger: the largest of `reads` reads is it.
    static func cableOffset(reads: Int = 200) throws -> Int64 {
        var offset = Int64.min
        for _ in 0..<reads {
            let captured = try pointers(capture)
            let played = try pointers(playback)
            offset = max(offset, captured.hw - played.hw)
        }
        return offset
    }

    /// Reads both sides, the capture first: `renderedThrough` from the playback's
    /// `appl_ptr` and `cableOffset` (a period the daemon writes meanwhile counts).
    static func read(cableOffset: Int64) throws -> LoopbackPointers {
        let start = Box.now()
        let captured = try pointers(capture)
        let end = Box.now()
        let played = try pointers(playback)
        guard captured.hw - played.hw <= cableOffset else {
            // Both sides' whole status (state, trigger time, pointers) say which end moved.
            let texts = [capture, playback].map { path in "\(path):\n" + ((try? Box.read(path)) ?? "(unreadable)") }
            throw BoxError("the loopback cable's offset grew from \(cableOffset) to \(captured.hw - played.hw) frames "
                + "(an underrun of the daemon's playback moves it); read again:\n" + texts.joined(separator: "\n"))
        }
        return LoopbackPointers(captureFrame: captured.hw, renderedThrough: played.appl + cableOffset,
                                captureReadStart: start, captureReadEnd: end)
    }

    /// The capture frame sounding at CLOCK_MONOTONIC `instant`: `captureFrame` moved on at
    /// `rate` from the start of its read. Against the frame that truly sounded then it is at
    /// most a pointer step early (the driver's pointer moves a jiffy at a time) and at most
    /// `readFrames` late (the pointer was brought up to date somewhere in the read).
    func captureFrame(at instant: Int64, rate: Int64) -> Int64 {
        captureFrame + (instant - captureReadStart) * rate / 1_000_000_000
    }

    /// How long the capture's status took to read, in frames at `rate` (rounded up).
    func readFrames(rate: Int64) -> Int64 {
        ((captureReadEnd - captureReadStart) * rate + 999_999_999) / 1_000_000_000
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
