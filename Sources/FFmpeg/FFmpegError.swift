import CFFmpeg

/// An FFmpeg call failed: which function, on which file, and FFmpeg's own words
/// (`av_strerror`).
public struct FFmpegError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The function that failed, e.g. "avformat_open_input".
    public var function: String
    /// The file it was called on.
    public var path: String
    /// `av_strerror` text (or a description of the failed expectation).
    public var message: String
    /// FFmpeg's error code (a negative `AVERROR`), 0 when FFmpeg reported none.
    public var code: Int32

    public init(function: String, path: String, message: String, code: Int32 = 0) {
        self.function = function
        self.path = path
        self.message = message
        self.code = code
    }

    /// The error for FFmpeg's return `code` from `function`.
    public init(code: Int32, function: String, path: String) {
        var buffer = [CChar](repeating: 0, count: 256)
        let found = av_strerror(code, &buffer, buffer.count) == 0
        let text = found ? String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                         : "error \(code)"
        self.init(function: function, path: path, message: text, code: code)
    }

    public var description: String { "\(function)(\(path)): \(message)" }

    /// FFmpeg found data it cannot make sense of (`AVERROR_INVALIDDATA`).
    public var isInvalidData: Bool { code == cffmpeg_error_invalid_data() }
    /// The input ended (`AVERROR_EOF`).
    public var isEndOfFile: Bool { code == cffmpeg_error_eof() }
    /// No decoder for the stream's codec (`AVERROR_DECODER_NOT_FOUND`).
    public var isDecoderNotFound: Bool { code == cffmpeg_error_decoder_not_found() }
}
