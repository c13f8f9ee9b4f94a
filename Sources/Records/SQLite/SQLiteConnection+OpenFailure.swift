#if canImport(Glibc)
    import Glibc
#endif

extension SQLiteConnection {
    /// Why SQLite could not open `path`, in the terms an operator acts on: a directory that does not
    /// exist, a file or directory this process may not write (SQLite creates the database and its
    /// `-wal` and `-shm` files beside it). Nil when none of these is the cause.
    ///
    /// Called only after `sqlite3_open_v2` failed (SQLite's own text is "unable to open database file").
    static func openFailureHint(path: String) -> String? {
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        let uid = getuid()
        var info = stat()
        guard stat(directory, &info) == 0 else {
            return "the directory \(directory) does not exist (create it, or point records.url elsewhere)"
        }
        guard info.st_mode & S_IFMT == S_IFDIR else { return "\(directory) is not a directory" }
        if access(path, F_OK) == 0 && access(path, R_OK | W_OK) != 0 {
            return "the file \(path) is not readable and writable by this process (uid \(uid))"
        }
        if access(directory, W_OK | X_OK) != 0 {
            return "the directory \(directory) is not writable by this process (uid \(uid)); SQLite creates the "
                + "database and its -wal and -shm files there: make it writable by uid \(uid) (in the container, "
                + "mount a volume or a directory owned by uid 999 at /data), or point records.url elsewhere"
        }
        return nil
    }
}
