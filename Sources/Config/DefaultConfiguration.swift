/// The built-in defaults: `Sources/Config/presignd.json` (also reachable as `config/presignd.json`),
/// compiled into the binary by SwiftPM's `embedInCode` resource rule, so the binary needs no file
/// to start and the defaults have one source.
enum DefaultConfiguration {
    /// The default configuration document, byte for byte.
    static var bytes: [UInt8] { PackageResources.presignd_json }
}
