import CFFmpeg

/// A compressed packet (`AVPacket`), reused from read to read. Owns its pointer.
public final class Packet {
    let pointer: UnsafeMutablePointer<AVPacket>

    public init() throws(FFmpegError) {
        guard let packet = av_packet_alloc() else {
            throw FFmpegError(function: "av_packet_alloc", path: "", message: "out of memory")
        }
        pointer = packet
    }

    deinit {
        var packet: UnsafeMutablePointer<AVPacket>? = pointer
        av_packet_free(&packet)
    }

    /// The index of the stream the packet belongs to.
    public var streamIndex: Int { Int(pointer.pointee.stream_index) }

    /// True when the packet's payload is encrypted (it carries `AV_PKT_DATA_ENCRYPTION_INFO`):
    /// common-encryption MP4, encrypted Matroska.
    public var isEncrypted: Bool {
        var size: Int = 0
        return av_packet_get_side_data(pointer, AV_PKT_DATA_ENCRYPTION_INFO, &size) != nil
    }

    /// Releases the payload (`av_packet_unref`).
    public func unref() { av_packet_unref(pointer) }
}
