import CAubio
#if canImport(Glibc)
import Glibc
#endif

/// libaubio, opened with `dlopen` the first time a beat tracker is made, never linked:
/// libaubio needs FFmpeg's libraries and some 130 more, which the daemon must not load.
/// Only an import opens it (in the daemon's `segmance import-worker` child process, in
/// `segmance import`, or in the twin), and it stays open for that process's life.
struct AubioLibrary: @unchecked Sendable {
    typealias NewTempo = @convention(c) (UnsafePointer<CChar>?, UInt32, UInt32, UInt32) -> OpaquePointer?
    typealias DeleteTempo = @convention(c) (OpaquePointer?) -> Void
    typealias TempoDo = @convention(c) (OpaquePointer?, UnsafePointer<fvec_t>?, UnsafeMutablePointer<fvec_t>?) -> Void
    typealias TempoLast = @convention(c) (OpaquePointer?) -> UInt32
    typealias TempoValue = @convention(c) (OpaquePointer?) -> Float
    typealias NewVector = @convention(c) (UInt32) -> UnsafeMutablePointer<fvec_t>?
    typealias DeleteVector = @convention(c) (UnsafeMutablePointer<fvec_t>?) -> Void
    typealias SetLogFunction =
        @convention(c) (Int32, aubio_log_function_t?, UnsafeMutableRawPointer?) -> aubio_log_function_t?

    /// The shared object Debian's libaubio5 installs.
    static let soname = "libaubio.so.5"

    let newTempo: NewTempo
    let deleteTempo: DeleteTempo
    let tempoDo: TempoDo
    let tempoLast: TempoLast
    let tempoBPM: TempoValue
    let tempoConfidence: TempoValue
    let newVector: NewVector
    let deleteVector: DeleteVector
    let setLogFunction: SetLogFunction

    /// The library, opened once per process; an error names what could not be found.
    static let shared: Result<AubioLibrary, AubioError> = Result { () throws(AubioError) in try AubioLibrary() }

    private init() throws(AubioError) {
        guard let handle = dlopen(Self.soname, RTLD_NOW | RTLD_LOCAL) else {
            throw AubioError(
                function: "dlopen", message: dlerror().map { String(cString: $0) } ?? "cannot open \(Self.soname)")
        }
        func symbol<T>(_ name: String, _ type: T.Type) throws(AubioError) -> T {
            guard let found = dlsym(handle, name) else {
                throw AubioError(function: "dlsym", message: "\(Self.soname) has no \(name)")
            }
            return unsafeBitCast(found, to: type)
        }
        newTempo = try symbol("new_aubio_tempo", NewTempo.self)
        deleteTempo = try symbol("del_aubio_tempo", DeleteTempo.self)
        tempoDo = try symbol("aubio_tempo_do", TempoDo.self)
        tempoLast = try symbol("aubio_tempo_get_last", TempoLast.self)
        tempoBPM = try symbol("aubio_tempo_get_bpm", TempoValue.self)
        tempoConfidence = try symbol("aubio_tempo_get_confidence", TempoValue.self)
        newVector = try symbol("new_fvec", NewVector.self)
        deleteVector = try symbol("del_fvec", DeleteVector.self)
        setLogFunction = try symbol("aubio_log_set_level_function", SetLogFunction.self)
    }
}
