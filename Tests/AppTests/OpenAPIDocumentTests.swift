import AppTestSupport
import Foundation
import JSON
import TestSupport
import Testing

@testable import App

/// The API document the server serves is docs/openapi.json (a link to Sources/App/openapi.json, the one
/// copy): the compiled-in copy is the file byte for byte, it is a well-formed OpenAPI document whose
/// references resolve, and the application serves it without credentials.
@Suite("OpenAPI document")
struct OpenAPIDocumentTests {
    static let sourcePath = ServerProcess.packageRoot.appendingPathComponent("docs/openapi.json").path

    static func source() throws -> [UInt8] {
        try #require(FileManager.default.contents(atPath: sourcePath).map { Array($0) }, "cannot read \(sourcePath)")
    }

    @Test("the embedded document is docs/openapi.json byte for byte, and docs/openapi.json links to the source")
    func embeddedIsTheFile() throws {
        let embedded = OpenAPIDocument.bytes
        let file = try Self.source()
        #expect(embedded.count == file.count)
        let firstDifference = zip(embedded, file).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(firstDifference == nil, "first difference at byte \(firstDifference ?? -1)")
        let link = try FileManager.default.destinationOfSymbolicLink(atPath: Self.sourcePath)
        #expect(link == "../Sources/App/openapi.json", "one copy of the document")
    }

    /// Every `$ref` of `value` with its JSON path.
    static func references(_ value: JSONValue, _ path: String) -> [(path: String, ref: String)] {
        switch value {
        case .object(let object):
            return object.flatMap { member -> [(path: String, ref: String)] in
                if member.key == "$ref", let ref = member.value.stringValue { return [(path, ref)] }
                return references(member.value, "\(path).\(member.key)")
            }
        case .array(let items):
            return items.enumerated().flatMap { references($0.element, "\(path)[\($0.offset)]") }
        default:
            return []
        }
    }

    @Test("the document is an OpenAPI 3.0 document: unique operationIds, every reference resolves, no empty member")
    func wellFormed() throws {
        let doc = try JSONValue(parsing: OpenAPIDocument.bytes)
        #expect(doc["openapi"]?.stringValue == "3.0.3")
        let paths = try #require(doc["paths"]?.objectValue)
        #expect(paths.contains("/openapi.json") && paths.contains("/openapi.yaml"))
        var ids: [String] = []
        for path in paths {
            for operation in path.value.objectValue ?? JSONObject() where operation.key != "parameters" {
                let id = operation.value["operationId"]?.stringValue
                #expect(id != nil, "\(operation.key) \(path.key) has no operationId")
                ids.append(id ?? "")
                #expect(operation.value["responses"]?.objectValue?.isEmpty == false, "\(operation.key) \(path.key)")
            }
        }
        #expect(ids.count == Set(ids).count, "operationIds must be unique")
        // Local references only, each naming a member that exists (`#/components/schemas/Error`).
        let refs = Self.references(doc, "$")
        #expect(refs.count > 100)
        for (path, ref) in refs {
            #expect(ref.hasPrefix("#/"), "\(path): \(ref)")
            var target: JSONValue? = doc
            for name in ref.dropFirst(2).split(separator: "/") { target = target?[String(name)] }
            #expect(target != nil, "\(path): \(ref) names nothing")
        }
        // Links name operations of the document.
        let links = try #require(doc["components"]?["links"]?.objectValue)
        for link in links {
            let id = link.value["operationId"]?.stringValue ?? ""
            #expect(ids.contains(id), "link \(link.key) names \(id)")
        }
        // A member without a value outside `example` and `default` is a mistake (nothing is null there).
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
        #expect(nullMembers(doc, "$") == [])
    }

    @Test("every operation documents the answers the HTTP layer gives to any route: 414 and 431")
    func everyOperationDocumentsTheParserAnswers() throws {
        // A target over maxTargetBytes or a head over maxHeaderBytes is refused before routing, so any
        // operation can answer them (schemathesis sends an 8 KiB cursor to GET /images and checks this).
        let doc = try JSONValue(parsing: OpenAPIDocument.bytes)
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
        #expect(json.body == OpenAPIDocument.bytes)
        #expect(try JSONValue(parsing: json.body)["info"]?["title"]?.stringValue == "presignd")

        let head = try await server.exchange("HEAD", "/openapi.json")
        #expect(head.status == 200)
        #expect(head.header("Content-Length") == String(json.body.count))
        #expect(head.body.isEmpty, "no body to HEAD")

        // The same server refuses the API itself without a token: the document is public on purpose.
        #expect(try await server.exchange("GET", "/images").status == 401)
    }
}
