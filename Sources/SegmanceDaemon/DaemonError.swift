import LinuxSystem

/// Why the daemon could not start or stopped: which side failed, with the error underneath
/// kept whole (a caller can match it), and its text as the error's own.
public enum DaemonError: Error, CustomStringConvertible {
    /// A system call failed (a descriptor, a thread, `poll`).
    case system(SystemError)
    /// The board's controls or display could not be opened (the profile's key, the devices present).
    case board(any Error)
    /// The audio side could not be opened or started.
    case audio(any Error)
    /// The library could not be opened.
    case library(any Error)
    /// The sticks' mount table could not be read or watched.
    case sticks(any Error)

    public var description: String {
        switch self {
        case .system(let error): "\(error)"
        case .board(let error), .audio(let error), .library(let error), .sticks(let error): "\(error)"
        }
    }

    /// The error underneath.
    public var underlying: any Error {
        switch self {
        case .system(let error): error
        case .board(let error), .audio(let error), .library(let error), .sticks(let error): error
        }
    }

    /// Runs `body`, wrapping the system call's failure it throws.
    static func system<T>(_ body: () throws(SystemError) -> T) throws(DaemonError) -> T {
        do {
            return try body()
        } catch {
            throw .system(error)
        }
    }

    /// Runs `body`, wrapping what it throws with `wrap` (a `DaemonError` stays as it is).
    static func wrapping<T>(_ wrap: (any Error) -> DaemonError, _ body: () throws -> T) throws(DaemonError) -> T {
        do {
            return try body()
        } catch let error as DaemonError {
            throw error
        } catch {
            throw wrap(error)
        }
    }
}
