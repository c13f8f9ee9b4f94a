import CLinux
import Testing

@testable import HTTPServer

#if canImport(Glibc)
    import Glibc
#endif

/// The epoll wrapper reports every refused `epoll_ctl` as an error value.
@Suite struct EpollTests {
    @Test("add, modify and remove an eventfd; its event is reported with its token")
    func roundTrip() throws {
        let epoll = try Epoll(capacity: 4)
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        #expect(fd >= 0)
        defer { Sys.close(fd) }
        try epoll.add(fd, interest: presignd_EPOLLIN(), token: 42)
        #expect(epoll.wait(timeoutMs: 0) == 0)
        var one: UInt64 = 1
        #expect(write(fd, &one, 8) == 8)
        #expect(epoll.wait(timeoutMs: 0) == 1)
        #expect(epoll.token(at: 0) == 42)
        #expect(epoll.flags(at: 0) & presignd_EPOLLIN() != 0)
        try epoll.modify(fd, interest: 0, token: 42)
        #expect(epoll.wait(timeoutMs: 0) == 0)
        try epoll.remove(fd)
    }

    @Test("epoll_ctl on a closed descriptor, twice-added or unknown gives an error with its errno")
    func errors() throws {
        let epoll = try Epoll(capacity: 4)
        let fd = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        Sys.close(fd)
        #expect(throws: ServerError.socket("epoll_ctl ADD", EBADF)) {
            try epoll.add(fd, interest: presignd_EPOLLIN(), token: 1)
        }
        let live = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        defer { Sys.close(live) }
        #expect(throws: ServerError.socket("epoll_ctl MOD", ENOENT)) {
            try epoll.modify(live, interest: presignd_EPOLLIN(), token: 1)
        }
        #expect(throws: ServerError.socket("epoll_ctl DEL", ENOENT)) { try epoll.remove(live) }
        try epoll.add(live, interest: presignd_EPOLLIN(), token: 1)
        #expect(throws: ServerError.socket("epoll_ctl ADD", EEXIST)) {
            try epoll.add(live, interest: presignd_EPOLLIN(), token: 1)
        }
    }
}
