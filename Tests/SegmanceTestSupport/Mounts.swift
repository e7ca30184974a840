import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Whether this process may mount file systems (a tmpfs for a full disk, a stick appearing).
public enum Mounts {
    public static let permitted: Bool = {
        let probe = NSTemporaryDirectory() + "segmance-mount-probe-\(getpid())"
        mkdir(probe, 0o755)
        defer { rmdir(probe) }
        guard mount("tmpfs", probe, "tmpfs", 0, "size=64k") == 0 else { return false }
        umount(probe)
        return true
    }()
}

