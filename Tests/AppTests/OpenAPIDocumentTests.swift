import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

@testable import App

/// The API document the server serves is docs/openapi.yaml (a link to Sources/App/openapi.yaml, the one
/// copy): the compiled-in copy is the file byte for byte, its JSON form is PyYAML's reading of it, and the
/// application serves both without credentials.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let sourcePath = ServerProcess.packageRoot.appendingPathComponent("docs/openapi.yaml").path

    static func source() throws -> [UInt8] {
        try #require(FileManager.default.contents(atPath: sourcePath).map { Array($0) }, "cannot read \(sourcePath)")
    }

    /// The lines of the YAML text under its top-level `section:` line (no YAML parser here).
    static func lines(of yaml: String, section: String) -> [Substring] {
        var result: [Substring] = []
        var inside = false
        for line in yaml.split(separator: "\n") {
            if !line.hasPrefix(" ") {
                inside = line == "\(section):"
            } else if inside {
                result.append(line)
            }
        }
        return result
    }

    /// The mapping keys at exactly `indent` spaces under `section` (block mappings, as the document uses).
    static func keys(of yaml: String, section: String, indent: Int) -> [String] {
        lines(of: yaml, section: section).compactMap { line in
            let entry = line.dropFirst(indent)
            guard line.prefix(indent).allSatisfy({ $0 == " " }), entry.first.map({ $0 != " " && $0 != "-" }) == true,
                let colon = entry.firstIndex(of: ":")
            else { return nil }
            return String(entry[..<colon]).trimmingCharacters(in: CharacterSet(charactersIn: "'\""))
        }
    }

    @Test("the embedded YAML is docs/openapi.yaml byte for byte, and docs/openapi.yaml links to the source")
    func embeddedYAMLIsTheFile() throws {
        let embedded = Array(OpenAPIDocument.yaml.utf8)
        let file = try Self.source()
        #expect(embedded.count == file.count)
        let firstDifference = zip(embedded, file).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at byte \(firstDifference ?? -1)")
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: Self.sourcePath)
        #expect(link == "../Sources/App/openapi.yaml", "one copy of the document")
    }

    /// PyYAML's reading of a YAML text (scripts/yaml_crosscheck.py), as JSON text; nil when it refuses it.
    static func pyYAML(_ documents: [String]) throws -> [String?] {
        struct Input: Encodable { var documents: [String] }
        struct Output: Decodable { var results: [String?] }
        return try PythonScript.run("yaml_crosscheck.py", input: Input(documents: documents), as: Output.self).results
    }

    @Test("the served JSON is the document as PyYAML reads it: the same values, members in the same order")
    func jsonIsPyYAMLsReading() throws {
        let python = try #require(try Self.pyYAML([OpenAPIDocument.yaml]).first ?? nil, "PyYAML refused it")
        let expected = try JSONValue(parsing: Array(python.utf8))
        let served = try JSONValue(parsing: Array(OpenAPIDocument.json.utf8))
        #expect(served == expected)
        // What gen-openapi.py used to refuse: a member without a value (an unquoted comma in a flow
        // mapping reads as a key without value) outside `example` and `default`.
        func nullMembers(_ value: JSONValue, _ path: String) -> [String] {
            switch value {
            case .object(let object):
                return object.flatMap { member -> [String] in
                    if member.value == .null && member.key != "example" && member.key != "default" {
                        return ["\(path).\(member.key)"]
                    }
                    return nullMembers(member.value, "\(path).\(member.key)")
                }
            case .array(let items):
                return items.enumerated().flatMap { nullMembers($0.element, "\(path)[\($0.offset)]") }
            default:
                return []
            }
        }
        #expect(nullMembers(served, "$") == [], "quote a text that holds a comma")
    }

    @Test("the embedded JSON parses with the JSON module and has the YAML's paths, operations and schemas")
    func embeddedJSONIsTheSameDocument() throws {
        let doc = try JSONValue(parsing: Array(OpenAPIDocument.json.utf8))
        #expect(doc["openapi"]?.stringValue == "3.0.3")
        let yaml = OpenAPIDocument.yaml
        let paths = try #require(doc["paths"]?.objectValue)
        #expect(paths.keys == Self.keys(of: yaml, section: "paths", indent: 2))
        #expect(paths.contains("/openapi.json") && paths.contains("/openapi.yaml"))
        let schemas = try #require(doc["components"]?["schemas"]?.objectValue)
        let yamlSchemas = Self.keys(of: yaml, section: "components", indent: 4)
        #expect(!schemas.keys.isEmpty && schemas.keys.allSatisfy { yamlSchemas.contains($0) })
        // Every operation: its operationId appears in the YAML, and every operationId of the YAML is one.
        var ids: [String] = []
        for path in paths {
            for operation in path.value.objectValue ?? JSONObject() {
                if let id = operation.value["operationId"]?.stringValue { ids.append(id) }
            }
        }
        // Operations sit at 4 spaces under their path, so their operationId at 6 (links' are deeper).
        let yamlIds = Self.lines(of: yaml, section: "paths").compactMap { line -> String? in
            line.hasPrefix("      operationId: ") ? String(line.dropFirst(19)) : nil
        }
        #expect(ids == yamlIds)
        #expect(ids.count == Set(ids).count, "operationIds must be unique")
    }

    @Test("every operation documents the answers the HTTP layer gives to any route: 414 and 431")
    func everyOperationDocumentsTheParserAnswers() throws {
        // A target over maxTargetBytes or a head over maxHeaderBytes is refused before routing, so any
        // operation can answer them (schemathesis sends an 8 KiB cursor to GET /images and checks this).
        let doc = try JSONValue(parsing: Array(OpenAPIDocument.json.utf8))
        let paths = try #require(doc["paths"]?.objectValue)
        var operations = 0
        for path in paths {
            for operation in path.value.objectValue ?? JSONObject() where operation.value["responses"] != nil {
                operations += 1
                let statuses = operation.value["responses"]?.objectValue?.keys ?? []
                for status in ["414", "431"] {
                    #expect(statuses.contains(status), "\(operation.key) \(path.key) does not document \(status)")
                }
            }
        }
        #expect(operations >= 13)
    }

    @Test("served at /openapi.json and /openapi.yaml without credentials, also to HEAD")
    func served() async throws {
        let (env, _) = TestEnvironment.serverEnvironment(
            s3: nil,
            extra: [
                "PRESIGN_AUTH_MODE": "jwt", "PRESIGN_AUTH_JWT_ALGORITHMS": "HS256",
                "PRESIGN_AUTH_HS256_SECRET": AuthFlowTests.secret,
            ])
        let server = try await InProcessApp(environment: env)
        defer { server.stop() }
        let yaml = try await server.exchange("GET", "/openapi.yaml")
        #expect(yaml.status == 200)
        #expect(yaml.header("Content-Type") == "application/yaml")
        #expect(yaml.body == (try Self.source()))

        let json = try await server.exchange("GET", "/openapi.json")
        #expect(json.status == 200)
        #expect(json.header("Content-Type") == "application/json")
        #expect(json.body == Array(OpenAPIDocument.json.utf8))
        #expect(try JSONValue(parsing: json.body)["info"]?["title"]?.stringValue == "presignd")

        let head = try await server.exchange("HEAD", "/openapi.json")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(json.body.count))
        #expect(head.body.isEmpty, "no body to HEAD")

        // The same server refuses the API itself without a token: the document is public on purpose.
        #expect(try await server.exchange("GET", "/images").status == 401)
    }
}
