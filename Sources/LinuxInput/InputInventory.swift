import LinuxSystem
/// An input device node and its name.
public struct InputDevice: Equatable, Hashable, Sendable {
    /// e.g. `/dev/input/event3`.
    public var path: String
    /// e.g. "PCsensor FootSwitch" or "rotary@11".
    public var name: String

    public init(path: String, name: String) {
        self.path = path
        self.name = name
    }
}

/// The evdev devices of this machine, for `segmance devices` and device lookup by name.
public enum InputInventory {
    /// Reads a device name from a node path; `EvdevDevice.name(at:)` unless a test stands in.
    public typealias NameReader = @Sendable (String) -> String?

    /// Every `eventN` node in `directory` whose name can be read, in number order.
    public static func devices(in directory: String = "/dev/input",
                               nameReader: NameReader = EvdevDevice.name(at:)) -> [InputDevice]
    {
        Directory(directory).numbered(prefix: "event").compactMap { entry in
            let path = FileSystem.join(directory, entry.name)
            return nameReader(path).map { InputDevice(path: path, name: $0) }
        }
    }

    /// The devices whose name is one of `names`, in number order. Throws
    /// `InputError.noDevice` listing the devices present when none matches.
    public static func devices(named names: [String], in directory: String = "/dev/input",
                               nameReader: NameReader = EvdevDevice.name(at:)) throws -> [InputDevice]
    {
        let all = devices(in: directory, nameReader: nameReader)
        let matching = all.filter { names.contains($0.name) }
        guard !matching.isEmpty else { throw InputError.noDevice(named: names, found: all) }
        return matching
    }
}
