import System

/// Why `ConfigLoader.readFile(atPath:)` could not read a file: System's error, under Config's old name.
public typealias FileReadError = System.FileReadError

extension ConfigLoader {
    /// Largest file `readFile(atPath:)` reads: config files and secret files are small.
    public static let maxFileBytes = 1 << 20

    /// Reads a whole file (at most `maxFileBytes`) with System's `FileReader`.
    public static func readFile(atPath path: String) throws(FileReadError) -> [UInt8] {
        try FileReader.readAll(atPath: path, limit: maxFileBytes)
    }
}
