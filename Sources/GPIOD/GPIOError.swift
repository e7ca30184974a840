import LinuxSystem
import Glibc

/// A failed libgpiod (or libc) call, with everything needed to fix the cause:
/// the function, what was asked for, the errno and its text, and what exists instead.
public struct GPIOError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What exists instead of the thing asked for, so the message can say what to configure.
    public enum Available: Equatable, Sendable {
        /// Nothing worth listing for this failure.
        case nothing
        /// The chips found in the device directory (`gpiochip0 [pinctrl-bcm2711], …`).
        case chips([String])
        /// The named lines of the chip (`17 PLAY`, `27 NEXT`, …).
        case namedLines([String])
    }

    /// The function that failed, e.g. `gpiod_chip_open`.
    public var function: String
    /// What was asked for, e.g. `chip "/dev/gpiochip9"` or `line "PLAY" on gpiochip0`.
    public var subject: String
    /// The errno the call left behind.
    public var errno: Int32
    /// The errno value's text (`SystemError.text`), e.g. "No such file or directory".
    public var reason: String
    /// What exists instead.
    public var available: Available

    /// Makes an error from an errno value; `reason` is its strerror text.
    public init(function: String, subject: String, errno: Int32, available: Available = .nothing) {
        self.function = function
        self.subject = subject
        self.errno = errno
        self.reason = SystemError.text(errno)
        self.available = available
    }

    public var description: String {
        var text = "\(function) failed for \(subject): \(reason) (errno \(errno))"
        switch available {
        case .nothing:
            break
        case .chips(let chips):
            text += "; chips present: " + (chips.isEmpty ? "none" : chips.joined(separator: ", "))
        case .namedLines(let lines):
            text += "; named lines: " + (lines.isEmpty ? "none" : lines.joined(separator: ", "))
        }
        return text
    }
}

extension GPIOError {
    /// An error from the errno the last C call left behind.
    static func last(_ function: String, _ subject: String, available: Available = .nothing) -> GPIOError {
        GPIOError(function: function, subject: subject, errno: Glibc.errno, available: available)
    }
}
