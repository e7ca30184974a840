import ALSA
import LinuxSystem
import SegmanceAudio

extension RenderContext {
    /// Rewinds the device and the renderer as far as the first waiting command allows.
    /// True when it rewound.
    mutating func rewindForCommands() -> Bool {
        guard let first = shared.pointee.commands.peek() else { return false }
        let chunk = Int64(periodFrames)
        let clock = renderer.clockInPlace()
        // avail synchronises the hardware pointer first: rewindable alone answers from the
        // pointer as of the last update, which after a long sleep is far behind, and a
        // rewind that trusts it rewrites frames already played.
        guard pcm.avail() >= 0 else { return false }
        let rewindable = pcm.rewindable()
        guard rewindable > 0 else { return false }
        let pointer = clock &- Int64(rewindable)
        notePointer(pointer)
        var target = earliestBoundary(pointer: pointer, before: first.command.command)
        if lastApplied != Int64.min { target = max(target, lastApplied / chunk &* chunk &+ chunk) }
        if first.frame != QueuedCommand.nextBoundary { target = max(target, first.frame / chunk &* chunk) }
        guard target < clock, clock &- target <= Int64(snapshotCount &- 1) &* chunk else { return false }
        let index = slot(target)
        guard snapshots[index].clock == target else { return false }
        let frames = Int(truncatingIfNeeded: clock &- target)
        let rewound = pcm.rewind(frames: frames)
        guard rewound == frames else {
            // Cut short: go back to where the buffer was; the command applies there.
            if rewound > 0 { _ = pcm.forward(frames: rewound) }
            shared.pointee.rewindsRefused.wrappingIncrement(ordering: .relaxed)
            return false
        }
        renderer.restore(snapshots[index])
        // History entries from the target on are written again.
        spanSynced = min(spanSynced, renderer.historyCount)
        while heldCount > 0 && heldReports[heldCount &- 1].frame >= target { heldCount &-= 1 }
        shared.pointee.rewinds.wrappingIncrement(ordering: .relaxed)
        return true
    }

    /// The first chunk boundary a rewind may go back to with the device's pointer at
    /// `pointer`: at least the guard past the frame playing now (more for a command that
    /// starts a stretched stream: its first chunk takes longer), never before what was
    /// settled.
    private mutating func earliestBoundary(pointer: Int64, before command: RenderCommand) -> Int64 {
        let chunk = Int64(periodFrames)
        let guardFrames = rewindGuardFrames &+ renderer.stretchGuardFramesInPlace(before: command)
        var earliest = pointer &+ Int64(guardFrames)
        if pointerMovesByPeriods {
            // A device whose pointer moves a period at a time took the period from `pointer`
            // as it started to play, and takes the next as that starts: a rewind lands on a
            // period it has not taken, one whose start is a guard or more away from the frame
            // playing now (the device's clock, projected).
            let period = devicePeriodFrames
            let anchored = anchorT == 0 ? pointer
                : anchorF &+ (monotonicNanoseconds() &- anchorT) &* sampleRate / 1_000_000_000
            let ahead = max(pointer, anchored) &+ Int64(guardFrames) &- pointer
            earliest = pointer &+ max(1, (ahead &+ period &- 1) / period) &* period
        }
        earliest = max(earliest, settledFloor)
        return (earliest &+ chunk &- 1) / chunk &* chunk
    }
}
