import GPIOD
import LinuxInput
import SegmanceBoard
import SegmanceControls
import SegmanceCore
import SegmanceInput

/// The board's controls as the drivers deliver them: the profile's GPIO lines (edges with
/// kernel timestamps, debounced and decoded by the controls) and its evdev devices (gpio-keys,
/// rotary-encoder, USB pedals and remotes, followed as they are plugged in and out).
/// Owned by the control loop.
public final class BoardInputs {
    /// Where the drivers' files are; tests point them at folders of their own.
    public struct Paths: Sendable {
        public var devices = "/dev"
        public var inputDevices = "/dev/input"
        /// The mount table the stick watcher follows.
        public var mountinfo = "/proc/self/mountinfo"
        /// Reads an evdev node's name; tests stand in for `EVIOCGNAME`.
        public var nameReader: InputInventory.NameReader = EvdevDevice.name(at:)
        public init() {}
    }

    /// A descriptor to poll and what it belongs to.
    public enum Source: Equatable, Sendable {
        case gpio
        case deviceWatcher
        case device(String)
    }

    private var inputs: DriverInputs
    private let gpio: GPIOEdgeSource<Int>?
    private let watcher: InputDeviceWatcher?
    private var devices: [String: EvdevDevice] = [:] {
        didSet { devicesChanged() }
    }
    private let keyMaps: [String: KeyMap]
    private let log: Log

    /// Requests the profile's GPIO lines and starts watching for its input devices.
    /// Errors name the profile key and list what exists.
    public init(profile: BoardProfile, file: String, paths: Paths = Paths(), log: Log) throws {
        self.log = log
        var offsets: [BoardProfile.Line: Int] = [:]
        if let config = profile.gpio {
            let scan = GPIOInventory.scan(in: paths.devices)
            let chips = scan.chips.map {
                ChipDescription(path: $0.path, name: $0.name, label: $0.label, lineNames: $0.lines.map(\.name))
            }
            for failure in scan.failures { log.warning("gpio: \(failure)") }
            let resolved = try profile.resolveGPIO(on: chips, file: file)
            offsets = resolved.offsets
            let chip = try GPIOChip(path: resolved.chip.path, devDirectory: paths.devices)
            let lineOffsets = Set(offsets.values).sorted().map { UInt32($0) }
            let request = try GPIOLineRequest(chip: chip, lines: lineOffsets.map { .offset($0) },
                                              bias: GPIOBias(rawValue: config.bias) ?? .asIs,
                                              activeLow: config.activeLow)
            gpio = try GPIOEdgeSource(request: request,
                                      ids: Dictionary(uniqueKeysWithValues: lineOffsets.map { ($0, Int($0)) }))
            log.info("gpio: \(lineOffsets.count) lines on \(resolved.chip.name) [\(resolved.chip.label)]")
        } else {
            gpio = nil
        }
        inputs = DriverInputs(controls: Controls(map: profile.controlMap(offsets: offsets)))

        var maps: [String: KeyMap] = [:]
        for device in profile.inputs {
            do {
                maps[device.name] = try KeyMap(keyNames: device.keys, axisNames: device.axes)
            } catch {
                throw BoardProfileError(file: file, key: "input (\(device.name))", reason: "\(error)")
            }
        }
        keyMaps = maps
        watcher = maps.isEmpty ? nil
            : try InputDeviceWatcher(names: profile.inputs.map(\.name), directory: paths.inputDevices,
                                     nameReader: paths.nameReader)
        devicesChanged()
    }

    /// The devices already present, as events (none yet: presses come later). Call once.
    public func start(now: Int64) -> [TimedEvent] {
        guard let watcher else { return [] }
        return apply(watcher.scan(), now: now)
    }

    /// What to poll now; the set changes as devices come and go (and `descriptorsVersion`
    /// with it).
    public private(set) var descriptors: [(fd: Int32, source: Source)] = []
    /// Counts the changes of `descriptors`: the loop rebuilds what it polls only when this
    /// moved, not on every pass.
    public private(set) var descriptorsVersion = 0

    private func devicesChanged() {
        var list: [(Int32, Source)] = []
        if let gpio { list += gpio.fileDescriptors.map { ($0, .gpio) } }
        if let watcher { list.append((watcher.fileDescriptor, .deviceWatcher)) }
        list += devices.sorted { $0.key < $1.key }.map { ($0.value.fileDescriptor, .device($0.key)) }
        descriptors = list
        descriptorsVersion &+= 1
    }

    /// The earliest time the controls have something pending (a long press, a double-press
    /// window): the loop must wake then even if nothing else happens.
    public var nextDeadline: Int64? { inputs.controls.nextDeadline }

    /// Reads what `source` has and returns the events it makes, each with the instant it acted.
    public func read(_ source: Source, now: Int64) -> [TimedEvent] {
        switch source {
        case .gpio:
            guard let gpio else { return [] }
            do {
                return inputs.gpio(try gpio.readPending())
            } catch {
                log.warning("gpio: \(error)")
                return []
            }
        case .deviceWatcher:
            guard let watcher else { return [] }
            do {
                return apply(try watcher.readChanges(), now: now)
            } catch {
                log.warning("input: \(error)")
                return []
            }
        case .device(let path):
            guard let device = devices[path] else { return [] }
            do {
                return inputs.evdev(path, try device.readEvents())
            } catch {
                // Unplugged between the watcher's notice and this read: drop it now.
                log.warning("input: \(path): \(error); dropping it")
                devices[path] = nil
                return inputs.removeDevice(path, at: now)
            }
        }
    }

    /// Lets pending gestures resolve at `now`.
    public func advance(to now: Int64) -> [TimedEvent] { inputs.advance(to: now) }

    private func apply(_ changes: [InputDeviceChange], now: Int64) -> [TimedEvent] {
        var events: [TimedEvent] = []
        for change in changes {
            switch change {
            case .appeared(let found):
                guard devices[found.path] == nil, let map = keyMaps[found.name] else { continue }
                do {
                    let device = try EvdevDevice(path: found.path)
                    // A keyboard-like pedal must not also type into the console.
                    do { try device.grab() } catch { log.warning("input: \(found.path): \(error); using it ungrabbed") }
                    try inputs.addDevice(found.path, keyMap: map)
                    devices[found.path] = device
                    log.info("input: \"\(found.name)\" at \(found.path)")
                } catch {
                    log.warning("input: \"\(found.name)\" at \(found.path): \(error)")
                }
            case .disappeared(let gone):
                guard devices.removeValue(forKey: gone.path) != nil else { continue }
                log.notice("input: \"\(gone.name)\" at \(gone.path) is gone")
                events += inputs.removeDevice(gone.path, at: now)
            }
        }
        return events
    }
}
