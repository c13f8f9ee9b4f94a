import Auth
import Config
import JSON
import Records
import Testing
import Uploads

@testable import App

/// The compiled answer templates: literal runs, values escaped, raw objects and numbers, inline text.
@Suite struct EnvelopeTests {
    static func envelope(_ template: String) throws -> Envelope {
        Envelope(try JSONValue(parsing: Array(template.utf8)))
    }

    @Test func valuesTakeTheirPlacesEscaped() throws {
        let e = try Self.envelope(#"{"success":true,"message":"OK","data":{"signedUrl":"{url}","n":[1,null,2.5]}}"#)
        var v = Envelope.Values()
        v.url = "https://h/b/k?X-Amz-Credential=a%2Fb&q=\"x\""
        let out = String(decoding: e.render(v), as: UTF8.self)
        #expect(
            out
                == #"{"success":true,"message":"OK","data":{"signedUrl":"https://h/b/k?X-Amz-Credential=a%2Fb&q=\"x\"","n":[1,null,2.5]}}"#
        )
        #expect(try JSONValue(parsing: Array(out.utf8))["data"]?["signedUrl"]?.stringValue == v.url)
    }

    @Test func rawFieldsAndMissingValues() throws {
        let e = try Self.envelope(
            #"{"size":"{size}","fields":"{fieldErrors}","headers":"{headers}","meta":"{metadata}","id":"{id}","s":"{status}"}"#
        )
        var v = Envelope.Values()
        v.size = 1234
        v.fieldErrors = ["imageKey": "imageKey must be a \"UUID\""]
        v.headers = [("Content-Type", "image/jpeg")]
        v.metadataJSON = #"{"questId":"12"}"#
        let json = try JSONValue(parsing: e.render(v))
        #expect(json["size"]?.intValue == 1234)
        #expect(json["fields"]?["imageKey"]?.stringValue == "imageKey must be a \"UUID\"")
        #expect(json["headers"]?["Content-Type"]?.stringValue == "image/jpeg")
        #expect(json["meta"]?["questId"]?.stringValue == "12")
        #expect(json["id"]?.isNull == true)
        #expect(json["s"]?.isNull == true)
    }

    @Test func placeholdersInsideTextAndParameters() throws {
        let e = try Self.envelope(#"{"m":"quest {param.questId}: {message} ({status})","k":"{param.none}"}"#)
        var v = Envelope.Values()
        v.message = "line\nbreak \"q\""
        v.status = 404
        v.parameters = [("questId", "1/2")]
        let json = try JSONValue(parsing: e.render(v))
        #expect(json["m"]?.stringValue == "quest 1/2: line\nbreak \"q\" (404)")
        #expect(json["k"]?.isNull == true)
    }

    @Test func literalTemplateBytesAreCompiledOnce() throws {
        let e = try Self.envelope(#"{"a":"x","b":{"c":[true,false]}}"#)
        #expect(e.parts.count == 1)
        #expect(String(decoding: e.render(.init()), as: UTF8.self) == #"{"a":"x","b":{"c":[true,false]}}"#)
    }

    @Test func everyAPIErrorCodeMayBeNamedInARoute() {
        let errors: [APIError] = [
            .malformedQuery, .malformedJSON("x"), .unsupportedMediaType, .validation([:]), .invalidUser(header: "h"),
            .rateLimited(retryAfterSeconds: 1), .upload(.signingFailed), .upload(.keyAlreadyRecorded),
            .upload(.keyInUse), .upload(.recordedByAnotherUser), .upload(.intentNotFound),
            .upload(.issuedToAnotherUser), .upload(.imageNotUploaded(expiredAtMs: nil)),
            .upload(.imageTooLarge(size: 1, limit: 0, type: "T", declared: false)),
            .upload(.contentTypeNotAllowed(stored: nil, type: "T", allowed: [])), .upload(.recordNotFound),
            .upload(.store(.unavailable("x"))), .upload(.intentsBacklogged), .upload(.storage(.timeout("t"))),
            .upload(.storage(.status(500, code: nil))), .upload(.contentMismatch(.notImage(.empty))),
            .upload(.credentialsUnavailable(secondsLeft: 1)),
        ]
        for e in errors { #expect(CompatRouteConfig.errorCodes.contains(e.code), "\(e.code)") }
        #expect(CompatRouteConfig.errorCodes.contains("UNAUTHORIZED"))
        // The server's own codes (EventLoop's answers on a route's path) may be named too.
        for code in [
            "BAD_REQUEST", "NOT_FOUND", "METHOD_NOT_ALLOWED", "REQUEST_TIMEOUT", "PAYLOAD_TOO_LARGE", "URI_TOO_LONG",
            "HEADERS_TOO_LARGE", "NOT_IMPLEMENTED", "VERSION_NOT_SUPPORTED", "CREDENTIALS_UNAVAILABLE", "SERVER_BUSY",
        ] {
            #expect(CompatRouteConfig.errorCodes.contains(code), "\(code)")
        }
    }

    @Test("client P's error shapes: its table's codes, 400 4001 for signing, <status>0 for the rest")
    func clientPErrorShapes() throws {
        var config = PresigndConfig.defaults
        config.compat.profiles = ["clientP"]
        let shapes = ErrorShapes(try #require(ClientPContract.issueErrors(config)))
        func render(_ e: APIError) throws -> (Int, JSONValue) {
            var fields: FieldErrors?
            if case .validation(let f) = e { fields = f }
            let (status, body) = try #require(
                shapes.render(status: e.status, code: e.code, message: e.message, fieldErrors: fields))
            return (status, try JSONValue(parsing: body))
        }
        let signing = try render(.upload(.signingFailed))
        #expect(signing.0 == 400)
        #expect(signing.1["code"]?.stringValue == "4001")
        let invalid = try render(.validation(["ext": "ext is required"]))
        #expect(invalid.0 == 422)
        #expect(invalid.1["code"]?.stringValue == "4220")
        #expect(invalid.1["message"]?.stringValue == "UNPROCESSABLE_CONTENT")
        #expect(invalid.1["fieldErrors"]?["ext"]?.stringValue == "ext is required")
        let expected: [(APIError, Int, String)] = [
            (.unauthorized(AuthFailure(.missingCredentials)), 401, "4010"),
            (.rateLimited(retryAfterSeconds: 3), 429, "4290"),
            (.upload(.imageNotUploaded(expiredAtMs: nil)), 404, "4040"), (.upload(.intentNotFound), 404, "4040"),
            (.upload(.issuedToAnotherUser), 403, "4030"), (.upload(.store(.unavailable("x"))), 503, "5030"),
            (.malformedQuery, 400, "4000"),
        ]
        for (e, status, code) in expected {
            let (s, json) = try render(e)
            #expect(s == status, "\(e)")
            #expect(json["code"]?.stringValue == code, "\(e)")
            #expect(json["message"]?.stringValue == e.message)
        }
        // The server's own codes too.
        let (s, body) = try #require(shapes.render(status: 413, code: "PAYLOAD_TOO_LARGE", message: "too large"))
        #expect(s == 413)
        #expect(String(decoding: body, as: UTF8.self) == #"{"code":"4130","message":"too large"}"#)
        // Off (the profile not on, or client P's contract not served): nil.
        #expect(ClientPContract.issueErrors(PresigndConfig.defaults) == nil)
        config.presign.serveClientP = false
        #expect(ClientPContract.issueErrors(config) == nil)
    }
}
