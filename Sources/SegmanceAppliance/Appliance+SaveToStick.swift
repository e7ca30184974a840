import LinuxSystem
import SegmanceCore
import SegmanceLibrary

extension Appliance {
    /// How long the mount helper has to answer a save (a big routine on a slow stick).
    public static let stickSaveTimeoutNanoseconds: Int64 = 300_000_000_000

    /// *Save to stick*: writes the routines changed on the box (with none changed, the one
    /// playing) to the stick that is in: through the mount helper on a device
    /// (`stickSaveSpool`), else straight into its folder. The LCD says how it went, in two
    /// lines that fit 16x2.
    func saveToStick() {
        guard let stick = stickIn else {
            send(.notice(Notice(.problem, ["No stick in:", "not saved"])))
            return
        }
        guard let spool = stickSaveSpool else {
            saveToStick(into: stick)
            return
        }
        guard pendingStickSave == nil else {
            send(.notice(Notice(.info, ["Saving to stick", "wait..."])))
            return
        }
        do throws(SystemError) {
            try spool.clear()
        } catch {
            log("save to stick: \(error)")
            send(.notice(Notice(.problem, ExportFailure.failed("").lcd)))
            return
        }
        guard let titles = export(into: spool.outbox, onCard: true) else { return }
        let device = String(stick.split(separator: "/").last ?? "")
        let id = "\(state.now)-\(UInt32.random(in: 0...UInt32.max))"
        do throws(SystemError) {
            try spool.request(device: device, id: id)
        } catch {
            log("save to stick: \(error)")
            send(.notice(Notice(.problem, ExportFailure.failed("").lcd)))
            return
        }
        log("save to stick: asked the mount helper to copy \(titles.count) routine(s) to \(stick) (request \(id))")
        pendingStickSave = (id, titles, state.now + Self.stickSaveTimeoutNanoseconds)
        // Short: a notice is never replaced, and the answer must not wait behind it.
        send(.notice(Notice(.info, ["Saving to stick", "..."])))
    }

    /// Writes the routines to save into the stick folder `root` (the twin's `export DIR`).
    public func saveToStick(into root: String) {
        guard let titles = export(into: root) else { return }
        send(.notice(Notice(.info, Self.savedLines(titles))))
    }

    /// When the mount helper's answer is due at the latest (the clock of `.clock` events).
    public var stickSaveDeadline: Int64? { pendingStickSave?.deadline }

    /// Looks for the mount helper's answer (call when its status folder changed, and at
    /// `stickSaveDeadline`): the LCD says "Saved to stick" or why not.
    public func pollStickSave() {
        guard let pending = pendingStickSave, let spool = stickSaveSpool else { return }
        guard let result = spool.result(id: pending.id) else {
            guard state.now >= pending.deadline else { return }
            pendingStickSave = nil
            log("save to stick: no answer from the mount helper (segmance-stick-save.path) in "
                + "\(Self.stickSaveTimeoutNanoseconds / 1_000_000_000) s: not saved")
            send(.notice(Notice(.problem, ExportFailure.failed("").lcd)))
            return
        }
        pendingStickSave = nil
        if let failure = result.failure {
            log("save to stick: not saved: \(failure)")
            send(.notice(Notice(.problem, failure.lcd)))
        } else {
            log("save to stick: written to the stick: \(result.folders.joined(separator: ", "))")
            send(.notice(Notice(.info, Self.savedLines(pending.titles))))
        }
    }

    /// Writes the routines to save under `root` (`onCard`: the library's disk, whose full
    /// is the card's); their titles, or nil once the LCD said why not.
    private func export(into root: String, onCard: Bool = false) -> [String]? {
        let titles: [String]
        do {
            let changed = try library.storedRoutines().filter(\.changedOnBox).map(\.routine.title)
            titles = changed.isEmpty ? (state.routine.map { [$0.title] } ?? []) : changed
        } catch {
            log("save to stick: \(error)")
            send(.notice(Notice(.problem, ExportFailure.failed("").lcd)))
            return nil
        }
        guard !titles.isEmpty else {
            send(.notice(Notice(.info, ["Nothing to save", ""])))
            return nil
        }
        let exporter = RoutineExporter(library: library)
        for title in titles {
            do throws(ExportFailure) {
                let folder = try exporter.export(titled: title, into: root)
                log("save to stick: \"\(title)\" written to \(root)/\(folder)")
            } catch {
                log("save to stick: \"\(title)\" not saved to \(root): \(error)")
                if onCard, case .full = error {
                    send(.notice(Notice(.problem, ["Card full:", "not saved"])))
                } else {
                    send(.notice(Notice(.problem, error.lcd)))
                }
                return nil
            }
        }
        return titles
    }

    private static func savedLines(_ titles: [String]) -> [String] {
        ["Saved to stick:", titles.count == 1 ? titles[0] : "\(titles.count) routines"]
    }
}

private extension Notice {
    init(_ kind: Kind, _ lines: (String, String)) { self.init(kind, [lines.0, lines.1]) }
}
