import Testing
@testable import SegmanceCore

/// Sticks arriving and leaving, the offer, the import's progress and its end.
@Suite(.tags(.unit)) struct StickTests {
    typealias F = Fixture
    static let offer = StickOffer(path: "/media/usb0", routines: 3)

    @Test func aStickIsOfferedAndThePushImportsIt() {
        var store = TestStore(F.loaded())
        store.send(.stickInserted(Self.offer)) {
            $0.stick = Self.offer
            $0.notice = ShownNotice(notice: Notice(.info, ["Stick found", "3 routines"]), until: $0.now + 3_000_000_000)
        }
        #expect(store.state.stickOfferShown)
        store.send(.buttonPressed(.select), [.importStick(path: "/media/usb0")]) {
            $0.notice = nil // the push takes the screen back first
            $0.importing = ImportProgress(routine: 1, count: 3, title: "", percent: 0)
        }
        #expect(!store.state.stickOfferShown)
        store.send(.importProgress(ImportProgress(routine: 2, count: 3, title: "Tango", percent: 40))) {
            $0.importing = ImportProgress(routine: 2, count: 3, title: "Tango", percent: 40)
        }
        store.send(.importFinished(ImportSummary(added: 2, unchanged: 1))) {
            $0.importing = nil
            $0.stick = nil
            $0.notice = ShownNotice(notice: Notice(.info, ["Import done", "2 new, 1 same"]),
                                    until: $0.now + 3_000_000_000)
        }
    }

    @Test func withAutoImportTheStickImportsAtOnce() {
        var store = TestStore(F.loaded(Settings(autoImport: true)))
        store.send(.stickInserted(Self.offer), [.importStick(path: "/media/usb0")]) {
            $0.stick = Self.offer
            $0.importing = ImportProgress(routine: 1, count: 3, title: "", percent: 0)
            $0.notice = ShownNotice(notice: Notice(.info, ["Stick found", "3 routines"]), until: $0.now + 3_000_000_000)
        }
    }

    @Test func anAPFSStickIsNamedAndNothingIsOffered() {
        let refusal = StickRefusal(device: "sdb2", fileSystem: "apfs", reason: .apfs,
                                   message: "/dev/sdb2 is APFS (a Mac's default format), which Linux cannot read")
        var store = TestStore(F.loaded(Settings(autoImport: true)))
        store.send(.stickRefused(refusal)) {
            $0.notice = ShownNotice(notice: Notice(.problem, ["Stick is APFS", "Reformat: exFAT"], duration: 8_000_000_000),
                                    until: $0.now + 8_000_000_000)
            $0.problems = [FileProblem(file: "sdb2", reason: refusal.message)]
            $0.problemsUnread = true
        }
        // A readable partition of the same stick (a Mac's EFI partition) is still offered after it;
        // its import starts a new list of problems.
        store.send(.stickInserted(Self.offer), [.importStick(path: "/media/usb0")]) {
            $0.stick = Self.offer
            $0.importing = ImportProgress(routine: 1, count: 3, title: "", percent: 0)
            $0.pendingNotices = [Notice(.info, ["Stick found", "3 routines"])]
            $0.problems = []
            $0.problemsUnread = false
        }
    }

    @Test(arguments: [
        (StickRefusal.Reason.apfs, "apfs", ["Stick is APFS", "Reformat: exFAT"]),
        (.encrypted, "BitLocker", ["Stick encrypted", "BitLocker"]),
        (.unknown, "", ["Stick unknown", "Reformat: exFAT"]),
        (.unsupported, "btrfs", ["Stick: btrfs", "Reformat: exFAT"]),
        (.unsupported, "crypto_LUKS_long_name", ["Stick: crypto_L", "Reformat: exFAT"]),
        (.mountFailed, "vfat", ["Stick vfat", "cannot be read"]),
    ])
    func aRefusedStickSaysWhyInAProblemsWidth(_ reason: StickRefusal.Reason, _ fileSystem: String, _ lines: [String]) {
        let refusal = StickRefusal(device: "sda1", fileSystem: fileSystem, reason: reason, message: "")
        #expect(refusal.lines == lines)
        // A problem notice starts with "!": 15 characters are left on a 16x2 LCD.
        #expect(refusal.lines.allSatisfy { $0.count <= 15 })
    }

    @Test func aLongPushSaysNotNowAndTheMenuWorksAgain() {
        var state = F.loaded()
        state.stick = Self.offer
        var store = TestStore(state)
        store.send(.buttonLongPressed(.select)) { $0.stick?.dismissed = true }
        store.send(.buttonPressed(.select)) { $0.menu = Menu() }
    }

    @Test func pullingTheStickCancelsItsImport() {
        var state = F.loaded()
        state.stick = Self.offer
        state.importing = ImportProgress(routine: 2, count: 3, title: "Tango", percent: 10)
        var store = TestStore(state)
        store.send(.stickRemoved(path: "/media/usb0"), [.cancelImport]) {
            $0.stick = nil
            $0.notice = ShownNotice(notice: Notice(.info, ["Stick removed"], duration: 1_500_000_000),
                                    until: $0.now + 1_500_000_000)
        }
        store.send(.importFinished(ImportSummary(added: 1, stopped: "stick removed"))) {
            $0.importing = nil
            $0.pendingNotices = [Notice(.problem, ["Import stopped", "stick removed"])]
        }
    }

    @Test func anotherStickGoingAwayCancelsNothing() {
        var state = F.loaded()
        state.stick = Self.offer
        state.importing = ImportProgress(routine: 1, count: 3, title: "", percent: 0)
        var store = TestStore(state)
        store.send(.stickRemoved(path: "/media/usb1")) {
            $0.notice = ShownNotice(notice: Notice(.info, ["Stick removed"], duration: 1_500_000_000),
                                    until: $0.now + 1_500_000_000)
        }
    }

    /// No music: the performer is told, and what was looked for; nothing is offered.
    @Test func aStickWithNoRoutinesIsNotOffered() {
        var store = TestStore(F.loaded(Settings(autoImport: true)))
        store.send(.stickInserted(StickOffer(path: "/media/usb0", routines: 0))) {
            let lines = ["No music on", "this stick", "Looked for: MP3", "WAV FLAC M4A OGG"]
            $0.notice = ShownNotice(notice: Notice(.problem, lines, duration: 8_000_000_000),
                                    until: $0.now + 8_000_000_000)
        }
    }

    /// Routines the import would refuse are said with the offer, never counted in it.
    @Test func refusedRoutinesAreSaidAndNotOffered() {
        var store = TestStore(F.loaded())
        store.send(.stickInserted(StickOffer(path: "/media/usb0", routines: 0, refused: 2))) {
            $0.notice = ShownNotice(notice: Notice(.problem, ["Stick found", "0 ok, 2 bad"]),
                                    until: $0.now + 3_000_000_000)
        }
        var offered = TestStore(F.loaded())
        offered.send(.stickInserted(StickOffer(path: "/media/usb1", routines: 1, refused: 1))) {
            $0.stick = StickOffer(path: "/media/usb1", routines: 1, refused: 1)
            $0.notice = ShownNotice(notice: Notice(.problem, ["Stick found", "1 routine, 1 bad"]),
                                    until: $0.now + 3_000_000_000)
        }
    }

    @Test(arguments: [
        (ImportSummary(), ["Import done", "nothing changed"]),
        (ImportSummary(unchanged: 4), ["Import done", "nothing changed"]),
        (ImportSummary(added: 1, failed: 1), ["Import done", "1 new, 1 failed"]),
        // More than 16 cells of counts: folded to what came in and what did not.
        (ImportSummary(added: 1, replaced: 2, failed: 1), ["Import done", "3 in, 1 not in"]),
        (ImportSummary(added: 2, unchanged: 3, leftOut: 1), ["Import done", "2 in, 1 not in"]),
        (ImportSummary(added: 1, stopped: "library disk full"), ["Import stopped", "library disk full"]),
    ])
    func theSummarySaysWhatChanged(summary: ImportSummary, lines: [String]) {
        #expect(summary.lines == lines)
    }
}
