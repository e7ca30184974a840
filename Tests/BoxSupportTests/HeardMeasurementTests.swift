import BoxSupport
import Testing

/// The twin placed where the heard edges say (a pointer step off the daemon's frames),
/// measured against a capture of the real twin acting at the daemon's frames: the capture
/// gives back exactly where LOOP and the detent acted, the twin placed there plays the
/// same, and a daemon that acted a period late, or logged other than it played, fails.
@Suite(.tags(.unit), .serialized) struct HeardMeasurementTests {
    static let shift: Int64 = 4_000

    /// `TwinPlacementTests`' rehearsal with NEXT in the loop's third pass (the loop is
    /// measured at the seam between passes 2 and 3); A at `a`.
    static func records(a: Int64 = 96_000) -> [ControlRecord] {
        var records = TwinPlacementTests.records(a: a)
        records[3].frame = 144_000
        return records
    }

    /// Edges with NEXT's render thread 2 048 frames ahead in the third pass, and what
    /// sounded at the heard edges: `sounding` (capture frames), if any.
    static func edges(sounding: [Int64?] = []) -> TwinScenario.Edges {
        var through = [Int64?](repeating: nil, count: 6)
        through[3] = 576_000 + shift - 2_048
        return .init(captureOnset: 96_000 + shift, renderedThrough: through, soundingAtHeardEdge: sounding)
    }

    /// The capture of the twin acting at `records`' frames, `shift` frames late.
    static func capture(_ records: [ControlRecord], rig: TwinPlacementTests.Rig) throws -> [Int16] {
        let played = try TwinScenario(countdownSeconds: 3).place(records, edges: edges())
        return [Int16](repeating: 0, count: Int(shift) * 2) + (try rig.run(played.text)).audio
    }

    @Test func theCaptureSaysWhereLoopAndTheDetentActedAndTheTwinPlacedThereIsTheDaemon() throws {
        let rig = try TwinPlacementTests.Rig()
        let scenario = TwinScenario(countdownSeconds: 3)
        let records = Self.records()
        let daemon = try scenario.place(records, edges: Self.edges())
        let captured = try Self.capture(records, rig: rig)
        // The heard edges 150 frames early, 90 late, 170 early (a pointer step, and its read).
        #expect(daemon.heardFrames == [nil, 336_000, 432_000, nil, 768_000, nil])
        let sounding: [Int64?] = [nil, 336_000 + Self.shift - 150, 432_000 + Self.shift + 90, nil,
                                  768_000 + Self.shift - 170, nil]
        let atEdges = try scenario.place(records, edges: Self.edges(sounding: sounding))
        // The twin hears there, not at the daemon's frames.
        #expect(atEdges.heardPositions[1] == 95_850 && atEdges.heardPositions[2] == 192_090, "\(atEdges.heardPositions)")
        #expect(atEdges.heardPositions[4] != 48_000, "\(atEdges.heardPositions)")
        let twin = try rig.run(atEdges.text).audio

        let heard = try HeardMeasurement(controls: records, placement: atEdges, capture: captured, twin: twin,
                                         shift: Self.shift, period: 512, periods: 4)
        #expect(heard.positions == [nil, 96_000, 192_000, nil, 48_000, nil])
        #expect(heard.edgePositions == [nil, 95_850, 192_090, nil, 47_830, nil])
        var placement = try scenario.place(records, edges: Self.edges(sounding: sounding), heard: heard.positions)
        #expect(placement.text == daemon.text)
        placement.edgePositions = heard.edgePositions
        let again = try rig.run(placement.text).audio
        let comparison = AudioComparison().compare(capture: captured, twin: again, commands: placement.commands)
        #expect(comparison.matches && comparison.matchedSoundFrames == comparison.soundFrames, "\(comparison.summary)")
        let frontier = placement.controlFrames.map { Optional($0 + Self.shift) }
        let agreement = EdgeAgreement(records: records, placement: placement,
                                      edges: .init(captureOnset: 100_000, renderedThrough: frontier),
                                      comparison: comparison, tolerance: 512, heardTolerance: 200, heard: heard.positions)
        #expect(agreement.failures.isEmpty, "\(agreement.failures)")
        #expect(agreement.summary == "press loop +0 (heard +150), press loop +0 (heard -90), press next +0, "
            + "turn +1 +0 (heard +170), press play +0", "\(agreement.summary)")

        // A daemon whose log says what it heard but that marked A a period (512 frames) later.
        let late = try Self.capture(Self.records(a: 96_512), rig: rig)
        let lateHeard = try HeardMeasurement(controls: records, placement: atEdges, capture: late, twin: twin,
                                             shift: Self.shift, period: 512, periods: 4)
        #expect(lateHeard.positions[1] == 96_512 && lateHeard.edgePositions[1] == 95_850)
        var latePlacement = try scenario.place(records, edges: Self.edges(sounding: sounding), heard: lateHeard.positions)
        latePlacement.edgePositions = lateHeard.edgePositions
        let lateAgreement = EdgeAgreement(records: Self.records(a: 96_512), placement: latePlacement,
                                          edges: .init(captureOnset: 100_000, renderedThrough: frontier),
                                          comparison: comparison, tolerance: 512, heardTolerance: 200,
                                          heard: lateHeard.positions)
        #expect(lateAgreement.failures.contains {
            $0.hasPrefix("press loop: the capture played what the daemon heard as part 1 frame 96512, 662 frames from what "
                + "sounded at its edge (frame 95850)")
        }, "\(lateAgreement.failures)")
        // The same capture from a daemon that logged 96 000: its log is not what it played.
        let lying = EdgeAgreement(records: records, placement: latePlacement,
                                  edges: .init(captureOnset: 100_000, renderedThrough: frontier),
                                  comparison: comparison, tolerance: 512, heardTolerance: 200, heard: lateHeard.positions)
        #expect(lying.failures.contains("press loop: the daemon logged that it heard part 1 frame 96000; "
            + "the capture played it as frame 96512"), "\(lying.failures)")
    }
}
