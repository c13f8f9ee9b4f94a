import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ctrl-C (SIGINT) and SIGTERM: a line that says what was left and how to go on, then exit 130 (143).
///
/// During a multipart upload the state file already holds every part sent (it is written after each),
/// so the hint is to run the same command with `--resume`; the upload stays open on the server for
/// `uppy.abortAfterSeconds`.
enum Interruption {
    /// The multipart upload running now: the file's path as given, and its state file.
    private static let current = NSLock()
    nonisolated(unsafe) private static var running: (path: String, stateFile: URL)?
    /// The signal sources (kept alive for the process's life).
    nonisolated(unsafe) private static var sources: [DispatchSourceSignal] = []

    /// Replaces the default action of SIGINT and SIGTERM with `interrupted(by:)`.
    static func install() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { interrupted(by: number) }
            source.resume()
            sources.append(source)
        }
    }

    /// A multipart upload of `path` keeps its state in `stateFile` from now on.
    static func uploading(path: String, stateFile: URL) {
        current.lock()
        running = (path, stateFile)
        current.unlock()
    }

    /// The multipart upload ended (done or failed).
    static func finished() {
        current.lock()
        running = nil
        current.unlock()
    }

    /// The hint for what was running when the signal came.
    static func hint(path: String?, stateFileExists: Bool) -> String {
        guard let path else { return "presign-upload: interrupted" }
        guard stateFileExists else {
            return "presign-upload: interrupted before a part of \(path) was recorded: run the same command again"
        }
        return "presign-upload: interrupted: the parts of \(path) sent so far are kept; run the same command "
            + "with --resume to continue (or --restart to send the file again)"
    }

    private static func interrupted(by number: Int32) {
        current.lock()
        let now = running
        current.unlock()
        let exists = now.map { FileManager.default.fileExists(atPath: $0.stateFile.path) } ?? false
        let line = "\n" + hint(path: now?.path, stateFileExists: exists) + "\n"
        FileHandle.standardError.write(Data(line.utf8))
        exit(128 + number)
    }
}
