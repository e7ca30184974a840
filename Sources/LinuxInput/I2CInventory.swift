import LinuxSystem

/// An I2C bus exposed by i2c-dev.
public struct I2CBus: Equatable, Sendable {
    /// e.g. `/dev/i2c-1`.
    public var path: String
    /// The bus number N of `i2c-N`.
    public var number: Int
    /// The adapter's name from sysfs, e.g. "bcm2835 (i2c@7e804000)"; nil if unreadable.
    public var name: String?

    public init(path: String, number: Int, name: String?) {
        self.path = path
        self.number = number
        self.name = name
    }
}

/// The I2C buses of this machine, for `segmance devices`.
public enum I2CInventory {
    /// Every `i2c-N` node in `devDirectory`, in number order, named from
    /// `sysDirectory/i2c-N/name`.
    public static func buses(devDirectory: String = "/dev",
                             sysDirectory: String = "/sys/class/i2c-dev") -> [I2CBus]
    {
        Directory(devDirectory).numbered(prefix: "i2c-").map { entry in
            I2CBus(path: FileSystem.join(devDirectory, entry.name), number: entry.number,
                   name: FileSystem.readText(FileSystem.join(sysDirectory, entry.name + "/name")))
        }
    }
}
