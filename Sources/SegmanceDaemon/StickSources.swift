import SegmanceAppliance
import SegmanceLibrary
import StickTransfer
import StickWatch

/// Sticks mounted and unmounted under the media root (the mount table's `POLLPRI`), each
/// offered with the volume label the mount helper read.
final class MountSource: LoopSource {
    private let mounts: MountWatcher
    private let context: LoopContext
    private let statusDirectory: String

    init(_ mounts: MountWatcher, statusDirectory: String, context: LoopContext) {
        self.mounts = mounts
        self.statusDirectory = statusDirectory
        self.context = context
    }

    var descriptors: [(fd: Int32, events: Int16)] { [(mounts.fileDescriptor, MountWatcher.pollEvents)] }

    func handle(ready: [Int32], now: Int64) {
        guard !ready.isEmpty else { return }
        offer()
    }

    /// Offers what changed since the last look (at start: every stick already mounted).
    func offer() {
        do {
            context.appliance.mountsChanged(try mounts.changes(), label: label)
        } catch {
            context.log.warning("mounts: \(error)")
        }
    }

    /// The volume label the mount helper read from a stick it mounted (its status file is
    /// named after the mount point's last component, the device: `sda1`).
    private func label(_ mount: MountEntry) -> String? {
        let device = String(mount.mountPoint.split(separator: "/").last ?? "")
        return StickRefusalWatcher.label(directory: statusDirectory, device: device)
    }
}

/// The mount helper's folder: sticks it refused (the LCD names the problem), and its answer
/// to a *Save to stick*, looked at when the folder changes and when the answer is due.
final class StickHelperSource: LoopSource {
    /// Nil when the folder cannot be watched (logged): the refusals are not named then.
    private let refusals: StickRefusalWatcher?
    private let context: LoopContext

    init(_ refusals: StickRefusalWatcher?, context: LoopContext) {
        self.refusals = refusals
        self.context = context
    }

    var descriptors: [(fd: Int32, events: Int16)] {
        refusals.map { [($0.fileDescriptor, DaemonLoop.readable)] } ?? []
    }

    func deadline(now: Int64) -> Int64? { context.appliance.stickSaveDeadline.map(context.monotonic) }

    func handle(ready: [Int32], now: Int64) {
        if !ready.isEmpty {
            refused()
            // The mount helper answers a save in the same folder.
            context.appliance.pollStickSave()
        }
        if let due = context.appliance.stickSaveDeadline, context.core(now) >= due { context.appliance.pollStickSave() }
    }

    /// Names the sticks refused since the last look (at start: those still in).
    func refused() {
        if let refusals { context.appliance.sticksRefused(refusals.changes()) }
    }
}

/// The import's child process: its progress and end, read from its descriptors.
final class ImportSource: LoopSource {
    private let importer: ProcessImportRunner
    private let context: LoopContext
    private let memory: MemoryGiveBack

    init(_ importer: ProcessImportRunner, memory: MemoryGiveBack, context: LoopContext) {
        self.importer = importer
        self.memory = memory
        self.context = context
    }

    var descriptors: [(fd: Int32, events: Int16)] { importer.descriptors.map { ($0, DaemonLoop.readable) } }

    func handle(ready: [Int32], now: Int64) {
        guard !ready.isEmpty else { return }
        let wasImporting = context.appliance.state.importing != nil
        context.appliance.pollImport()
        if wasImporting && context.appliance.state.importing == nil { memory.importEnded() }
    }

    /// An import in flight is abandoned cleanly (its child killed): the routine it was on
    /// stays as it was.
    func cancel() {
        guard importer.isRunning else { return }
        importer.cancel()
        _ = importer.waitUntilFinished()
    }
}
