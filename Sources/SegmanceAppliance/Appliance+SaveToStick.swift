import SegmanceCore
import SegmanceLibrary

extension Appliance {
    /// *Save to stick*: writes the routines changed on the box (with none changed, the one
    /// playing) straight into the folder of the stick that is in. The LCD says how it went,
    /// in two lines that fit 16x2. (On the device the stick is mounted read-only: this says
    /// "Stick locked" until the mount helper remounts it for the write.)
    func saveToStick() {
        guard let stick = stickIn else {
            send(.notice(Notice(.problem, ["No stick in:", "not saved"])))
            return
        }
        saveToStick(into: stick)
    }

    /// Writes the routines to save into the stick folder `root` (the twin's `export DIR`).
    public func saveToStick(into root: String) {
        let titles: [String]
        do {
            let changed = try library.storedRoutines().filter(\.changedOnBox).map(\.routine.title)
            titles = changed.isEmpty ? (state.routine.map { [$0.title] } ?? []) : changed
        } catch {
            log("save to stick: \(error)")
            send(.notice(Notice(.problem, ExportFailure.failed("").lcd)))
            return
        }
        guard !titles.isEmpty else {
            send(.notice(Notice(.info, ["Nothing to save", ""])))
            return
        }
        let exporter = RoutineExporter(library: library)
        for title in titles {
            do throws(ExportFailure) {
                let folder = try exporter.export(titled: title, into: root)
                log("save to stick: \"\(title)\" written to \(root)/\(folder)")
            } catch {
                log("save to stick: \"\(title)\" not saved to \(root): \(error)")
                send(.notice(Notice(.problem, error.lcd)))
                return
            }
        }
        send(.notice(Notice(.info, ["Saved to stick:", titles.count == 1 ? titles[0] : "\(titles.count) routines"])))
    }
}

private extension Notice {
    init(_ kind: Kind, _ lines: (String, String)) { self.init(kind, [lines.0, lines.1]) }
}
