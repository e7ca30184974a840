import Glibc
import LinuxSystem
import Testing

@Suite struct SystemErrorTests {
    @Test func itsTextIsTheCallItsSubjectAndStrerror() {
        #expect(SystemError("open", path: "/stick/a.wav", code: ENOENT).description
                == "open(/stick/a.wav): No such file or directory")
        #expect(SystemError("eventfd", subject: "a wake descriptor", code: EMFILE).description
                == "eventfd(a wake descriptor): Too many open files")
    }

    @Test func aNoteReplacesTheStrerrorText() {
        let error = SystemError("mmap", path: "/lib/x.pcm", code: EINVAL)
            .withNote("the file is shorter than its frames")
        #expect(error.description == "mmap(/lib/x.pcm): the file is shorter than its frames")
        #expect(error.code == EINVAL)
    }

    @Test(arguments: [(ENOSPC, true), (EFBIG, true), (EDQUOT, true), (EIO, false), (ENOENT, false)])
    func diskFullIsOutOfSpaceOrOverALimit(code: Int32, full: Bool) {
        #expect(SystemError("write", path: "f", code: code).isDiskFull == full)
    }

    @Test func theTextOfAnErrnoIsStrerrors() {
        #expect(SystemError.text(EACCES) == "Permission denied")
        #expect(SystemError.text(ENOSPC) == "No space left on device")
    }

    @Test func theDefaultCodeIsErrnoAtTheCall() {
        errno = EBADF
        let error = SystemError("read", subject: "descriptor 99")
        #expect(error.code == EBADF)
        #expect(error.path == "descriptor 99")
    }
}
