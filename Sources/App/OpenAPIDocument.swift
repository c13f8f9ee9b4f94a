/// The API document: `openapi.json` beside this file (docs/openapi.json links to it), compiled in by
/// SwiftPM's `embedInCode` resource rule and served as it is: JSON is also YAML (1.2), so the same
/// bytes answer `/openapi.json` and `/openapi.yaml` and nothing reads the document at start.
enum OpenAPIDocument {
    /// The file, byte for byte.
    static let bytes: [UInt8] = PackageResources.openapi_json

    /// The same bytes as text.
    static let text = String(decoding: bytes, as: UTF8.self)
}
