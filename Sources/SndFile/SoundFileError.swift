import CSndFile

/// A libsndfile call failed: which function, on which file, and libsndfile's own words.
public struct SoundFileError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The libsndfile function that failed, e.g. "sf_open".
    public var function: String
    /// The file it was called on.
    public var path: String
    /// `sf_strerror` text (or a description of the failed expectation).
    public var message: String
    /// libsndfile's error number (`sf_error`), 0 when the failure was not reported by it.
    public var code: Int32

    public init(function: String, path: String, message: String, code: Int32 = 0) {
        self.function = function
        self.path = path
        self.message = message
        self.code = code
    }

    public var description: String { "\(function)(\(path)): \(message)" }

    /// The error libsndfile reports for `handle` (nil = the last failed open).
    static func current(_ function: String, path: String, handle: OpaquePointer?) -> SoundFileError {
        let code = sf_error(handle)
        let text = sf_strerror(handle).map { String(cString: $0) } ?? "unknown error"
        return SoundFileError(function: function, path: path, message: text, code: code)
    }
}
