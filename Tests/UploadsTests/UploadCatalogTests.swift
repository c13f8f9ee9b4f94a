import Config
import Testing

@testable import Uploads

/// The rules a request must meet to get a URL, each problem reported with its context, in field order
/// (the types are the embedded defaults, Sources/Config/presignd.json, plus one that requires a chatroomId).
@Suite struct UploadCatalogTests {
    static func catalog() throws -> UploadCatalog {
        var types = PresigndConfig.defaults.types
        types.append(
            UploadTypeConfig(
                name: "ROOM", extensions: ["jpg"], contentTypes: ["image/jpeg"],
                keyTemplate: "rooms/{chatroomId}/{uuid}.{ext}", maxBytes: 100, chatroomId: .required))
        return try UploadCatalog(types)
    }

    /// The types an issue by type can name (those with extensions), and every type, in configuration order.
    static let byType = ["PROFILE", "FEED", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "ROOM"]
    static let all = ["PROFILE", "FEED", "CHATROOM_PROFILE", "CHAT", "CHAT_PROFILE", "IMAGE", "VIDEO", "ROOM"]

    /// (type, ext, chatroomId, the problems).
    static let newVectors: [(String?, String?, String?, [UploadProblem])] = [
        ("PROFILE", "JPG", nil, []),
        (nil, nil, nil, [.typeMissing, .extensionMissing]),
        ("", "jpg", nil, [.typeMissing]),
        ("NOPE", "jpg", nil, [.unknownType("NOPE", known: byType)]),
        // IMAGE takes no extension: issued by key only.
        (
            "IMAGE", "jpg", nil,
            [.unknownType("IMAGE", known: byType), .extensionNotAllowed("jpg", type: "IMAGE", allowed: [])]
        ),
        (
            "PROFILE", "gif", "x1",
            [
                .extensionNotAllowed("gif", type: "PROFILE", allowed: ["jpg", "jpeg", "png"]), .chatroomIdNotNumeric,
            ]
        ),
        ("ROOM", "jpg", nil, [.chatroomIdRequired(type: "ROOM")]),
        ("ROOM", "jpg", "", [.chatroomIdRequired(type: "ROOM")]),
        ("ROOM", "jpg", "42", []),
    ]

    @Test("issuing by type", arguments: 0..<newVectors.count)
    func checkNew(_ index: Int) throws {
        let (type, ext, chatroomId, problems) = Self.newVectors[index]
        let catalog = try Self.catalog()
        do throws(UploadError) {
            let upload = try catalog.checkNew(typeName: type, ext: ext, chatroomId: chatroomId)
            #expect(problems.isEmpty, "accepted \(index)")
            #expect(upload.ext == ext?.lowercased())
        } catch {
            #expect(error == .rejected(problems))
        }
    }

    @Test("issuing for a client-chosen key: every problem at once, the upload only when none")
    func checkKeyed() throws {
        let catalog = try Self.catalog()
        let ok = catalog.checkKeyed(
            KeyedRequest(
                typeName: "IMAGE", contentType: "IMAGE/PNG", imageKey: "k", declared: .init(size: .bytes(10))))
        #expect(ok.problems.isEmpty)
        #expect(ok.upload?.contentType == "image/png" && ok.upload?.declared.size == 10)
        let bad = catalog.checkKeyed(
            KeyedRequest(
                typeName: "IMAGE", contentType: "image/gif", imageKey: "k",
                declared: .init(size: .bytes(Int64(20 * 1024 * 1024 + 1)))))
        #expect(bad.upload == nil)
        let limit: Int64 = 20 * 1024 * 1024
        let imageTypes = ["image/jpeg", "image/png", "image/heic", "image/webp"]
        let expected: [UploadProblem] = [
            .contentTypeNotAllowed("image/gif", type: "IMAGE", allowed: imageTypes),
            .sizeOverLimit(limit + 1, type: "IMAGE", limit: limit),
        ]
        #expect(bad.problems == expected)
        #expect(
            catalog.checkKeyed(KeyedRequest(typeName: "ROOM", contentType: nil, imageKey: nil)).problems == [
                .chatroomIdRequired(type: "ROOM")
            ])
        #expect(
            catalog.checkKeyed(KeyedRequest(typeName: "X", contentType: "a/b", imageKey: "k")).problems == [
                .unknownType("X", known: Self.all)
            ])
        // A member the front door could not read is missing: no upload, no problem of its own.
        let missing = catalog.checkKeyed(KeyedRequest(typeName: "IMAGE", contentType: "image/png", imageKey: nil))
        #expect(missing.upload == nil && missing.problems.isEmpty)
    }

    @Test("a browser upload's object, and the types an operation accepts")
    func checkObjectAndAccepted() throws {
        let catalog = try Self.catalog()
        func object(_ type: String, _ media: String, _ chatroomId: String?) -> ObjectRequest {
            ObjectRequest(
                filename: "a.jpg", mediaType: media, typeName: type, chatroomId: chatroomId, metadataJSON: nil)
        }
        #expect(try catalog.checkObject(object("IMAGE", "image/png", nil)).type.name == "IMAGE")
        #expect(throws: UploadError.rejected([.unknownType("NOPE", known: Self.all)])) {
            try catalog.checkObject(object("NOPE", "image/png", nil))
        }
        #expect(
            throws: UploadError.rejected([
                .contentTypeNotAllowed("video/mp4", type: "ROOM", allowed: ["image/jpeg"]),
                .chatroomIdRequired(type: "ROOM"),
            ])
        ) {
            try catalog.checkObject(object("ROOM", "video/mp4", nil))
        }
        #expect(throws: UploadError.rejected([.chatroomIdNotNumeric])) {
            try catalog.checkObject(object("ROOM", "image/jpeg", "x"))
        }
        try UploadCatalog.checkAccepted("PROFILE", [])
        try UploadCatalog.checkAccepted("PROFILE", ["PROFILE"])
        #expect(throws: UploadError.rejected([.typeNotAccepted("FEED", accepted: ["PROFILE"])])) {
            try UploadCatalog.checkAccepted("FEED", ["PROFILE"])
        }
    }

    @Test("a template that does not parse stops the start, naming its key")
    func badTemplate() {
        let bad = UploadTypeConfig(
            name: "BAD", extensions: [], contentTypes: ["a/b"], keyTemplate: "{nope}", maxBytes: 1)
        #expect(throws: UploadError.configuration("types.BAD.keyTemplate")) { try UploadCatalog([bad]) }
    }
}
