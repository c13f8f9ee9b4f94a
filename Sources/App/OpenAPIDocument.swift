import JSON

/// The API document: `openapi.yaml` beside this file (docs/openapi.yaml links to it), compiled in by
/// SwiftPM's `embedInCode` resource rule, and its JSON form, read from the YAML once (`YAMLReader`,
/// the JSON module: no Foundation), when the routes are made.
enum OpenAPIDocument {
    /// The YAML text, byte for byte.
    static let yaml = String(decoding: PackageResources.openapi_yaml, as: UTF8.self)

    /// The same document as JSON (members in document order, two-space indentation).
    static let json: String = {
        do throws(JSONError) {
            return try YAMLReader.value(yaml).prettyPrinted(indent: 2)
        } catch {
            // The document is compiled in and read by the tests: this is a programmer's mistake.
            fatalError("Sources/App/openapi.yaml is outside the YAML subset the server reads: \(error)")
        }
    }()
}
