import Foundation

/// The files under Fixtures/.
enum Fixtures {
    /// The bytes of `name`.
    static func bytes(_ name: String) throws -> [UInt8] {
        guard let url = Bundle.module.url(forResource: "Fixtures/" + name, withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: name])
        }
        return Array(try Data(contentsOf: url))
    }
}
