import CAubio
import Synchronization

/// An aubio call failed: which function, and the message aubio logged for it.
public struct AubioError: Error, Equatable, Sendable, CustomStringConvertible {
    public var function: String
    public var message: String
    public init(function: String, message: String) {
        self.function = function
        self.message = message
    }
    public var description: String { "\(function): \(message)" }
}

/// aubio reports errors by logging them (and returning NULL or non-zero); its error log
/// is routed here so that the thrown error carries aubio's own text.
enum AubioLog {
    private static let last = Mutex<String?>(nil)
    private static let installed: Bool = {
        guard case .success(let aubio) = AubioLibrary.shared else { return false }
        _ = aubio.setLogFunction(Int32(AUBIO_LOG_ERR.rawValue), { _, message, _ in
            // aubio prefixes its level ("AUBIO ERROR: ") and ends with a newline.
            var text = message.map { String(cString: $0) }?.trimmingCharacters(in: " \n")
            if let t = text, t.hasPrefix("AUBIO ERROR: ") { text = String(t.dropFirst("AUBIO ERROR: ".count)) }
            AubioLog.last.withLock { $0 = text }
        }, nil)
        // Warnings go to stderr by default; the import worker keeps its stderr for its own lines.
        _ = aubio.setLogFunction(Int32(AUBIO_LOG_WRN.rawValue), { _, _, _ in }, nil)
        return true
    }()

    /// Forgets the last message (before a call whose failure is to be explained).
    static func reset() {
        _ = installed
        last.withLock { $0 = nil }
    }

    /// The message aubio logged since `reset()`, or `fallback`.
    static func message(or fallback: String) -> String {
        last.withLock { $0 } ?? fallback
    }
}

extension String {
    fileprivate func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let c = s.first, set.contains(c) { s.removeFirst() }
        while let c = s.last, set.contains(c) { s.removeLast() }
        return String(s)
    }
}
