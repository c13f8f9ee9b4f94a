import Foundation

/// The bytes of `Fixtures/<name>` (real files made by real encoders; see Fixtures/README.md).
func fixture(_ name: String) -> [UInt8] {
    let dot = name.lastIndex(of: ".")!
    guard
        let url = Bundle.module.url(
            forResource: String(name[..<dot]), withExtension: String(name[name.index(after: dot)...]),
            subdirectory: "Fixtures"),
        let data = try? Data(contentsOf: url)
    else { return [] }
    return Array(data)
}
