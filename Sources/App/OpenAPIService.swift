import HTTPServer

/// `GET /openapi.json` and `GET /openapi.yaml`: the API document (`OpenAPIDocument`, the compiled-in
/// Sources/App/openapi.json), the same bytes under two media types, without authentication; HEAD is
/// answered by the router from GET.
enum OpenAPIService {
    /// The JSON answer, built once: the body is shared by every request.
    static let jsonResponse = Response(
        status: 200, headers: [("Content-Type", "application/json"), ("Cache-Control", "no-cache")],
        body: OpenAPIDocument.bytes)

    /// The YAML answer (RFC 9512's media type): the JSON text, which YAML 1.2 reads as the same document.
    static let yamlResponse = Response(
        status: 200, headers: [("Content-Type", "application/yaml"), ("Cache-Control", "no-cache")],
        body: OpenAPIDocument.bytes)

    /// The two routes; both answer on the event loop. Both bodies are made here, at start, once.
    static func routes() -> [Route] {
        let (json, yaml) = (jsonResponse, yamlResponse)
        return [
            Route(.GET, "/openapi.json") { _ in .respond(json) },
            Route(.GET, "/openapi.yaml") { _ in .respond(yaml) },
        ]
    }
}
