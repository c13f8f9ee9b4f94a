import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The body of one part: `length` bytes of a file from `offset`, handed to URLSession without a copy
/// of our own that outlives the task's creation.
///
/// Why not a stream or a file slice (checked on Linux, Swift 6.3.1, libcurl 7.88.1): FoundationNetworking
/// gives an `httpBodyStream` (or `uploadTask(withStreamedRequest:)`) no length, so libcurl sends it
/// with `Transfer-Encoding: chunked` beside our `Content-Length` (and an empty `Transfer-Encoding`
/// header to switch that off is sent as such): a presigned UploadPart needs an exact Content-Length
/// and S3 refuses chunked PUTs. `uploadTask(fromFile:)` sends a whole file (its length is the file's
/// size), and no slice of a file is a file without copying it.
///
/// So on Linux the part is memory-mapped from the file and given to `uploadTask(with:from:)`, which
/// copies it into the task at once (`createDispatchData`); the mapping is gone when that returns. At
/// most one mapping exists at a time (`creationLock`), so the memory of parts is FoundationNetworking's
/// one copy per part in flight (`concurrency × partSize`) plus at most one part being mapped. On
/// Darwin (not measured here) the part is read into one `Data` per attempt, released with its task.
enum PartBody {
    /// One part at a time is mapped and copied into its task.
    static let creationLock = NSLock()

    /// The upload task for `request` with the part's bytes as its body.
    static func uploadTask(_ session: URLSession, _ request: URLRequest, file: URL, offset: Int64, length: Int)
        throws -> URLSessionUploadTask
    {
        #if canImport(FoundationNetworking)
            creationLock.lock()
            defer { creationLock.unlock() }
            let data = try mapped(file, offset: offset, length: length)
            return session.uploadTask(with: request, from: data)
        #else
            return session.uploadTask(with: request, from: try read(file, offset: offset, length: length))
        #endif
    }

    /// The part's bytes as a `Data` over a private read-only mapping of the file, unmapped when the
    /// `Data` goes. Refused (`.file`) when the file no longer holds the whole part (a mapping past the
    /// end of a file would fault on access).
    static func mapped(_ file: URL, offset: Int64, length: Int) throws -> Data {
        let fd = open(file.path, O_RDONLY)
        guard fd >= 0 else {
            throw PresignClientError.file("\(file.path): cannot open (\(String(cString: strerror(errno))))")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            throw PresignClientError.file("\(file.path): cannot stat (\(String(cString: strerror(errno))))")
        }
        guard offset >= 0, Int64(info.st_size) >= offset + Int64(length) else {
            throw PresignClientError.file("\(file.path): short read at \(offset) (the file changed?)")
        }
        guard length > 0 else { return Data() }
        let page = Int64(sysconf(Int32(_SC_PAGESIZE)))
        let start = offset - offset % page
        let skip = Int(offset - start)
        let mappedLength = skip + length
        #if os(Linux)
            let flags = MAP_PRIVATE | MAP_POPULATE  // the pages are read at once: fault them in one go
        #else
            let flags = MAP_PRIVATE
        #endif
        guard let base = mmap(nil, mappedLength, PROT_READ, flags, fd, off_t(start)), base != MAP_FAILED
        else {
            throw PresignClientError.file("\(file.path): cannot map (\(String(cString: strerror(errno))))")
        }
        return Data(
            bytesNoCopy: base + skip, count: length,
            deallocator: .custom { _, _ in _ = munmap(base, mappedLength) })
    }

    /// `length` bytes of `file` from `offset` (one seek and one read; the file is never read whole).
    static func read(_ file: URL, offset: Int64, length: Int) throws -> Data {
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            try handle.seek(toOffset: UInt64(offset))
            let data = try handle.read(upToCount: length) ?? Data()
            guard data.count == length else {
                throw PresignClientError.file("\(file.path): short read at \(offset) (the file changed?)")
            }
            return data
        } catch let e as PresignClientError {
            throw e
        } catch {
            throw PresignClientError.file("\(file.path): \(error.localizedDescription)")
        }
    }
}
