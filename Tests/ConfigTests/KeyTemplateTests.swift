import Testing

@testable import Config

/// Key templates: parsing, rendering straight into the key, and the value rules (a rendered key is
/// always a safe key). Templates are the shipped defaults (config/presignd.json).
@Suite("Key templates")
struct KeyTemplateTests {
    static let uuid = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"

    /// (template, values, expected key) from the default configuration's types.
    static let rendered: [(String, KeyTemplate.Values, String)] = [
        (
            "delete/profile/{userId}/{uuid}_{epochMillis}.{ext}",
            .init(userId: "u-42", uuid: uuid, epochMillis: 1_795_961_227_768, ext: "jpg"),
            "delete/profile/u-42/\(uuid)_1795961227768.jpg"
        ),
        (
            "profile/{userId}/origin/{uuid}_{epochMillis}.{ext}",
            .init(userId: "1", uuid: uuid, epochMillis: 0, ext: "png"),
            "profile/1/origin/\(uuid)_0.png"
        ),
        (
            "delete/chatroom/{chatroomId}/chat/{uuid}/{uuid}_{epochMillis}.{ext}",
            .init(uuid: uuid, epochMillis: 9, ext: "heic", chatroomId: "9223372036854775807"),
            "delete/chatroom/9223372036854775807/chat/\(uuid)/\(uuid)_9.heic"
        ),
        (
            "{imageKey}",
            .init(imageKey: uuid),
            uuid
        ),
        (
            "a/{epochMillis}",
            .init(epochMillis: Int64.max),
            "a/9223372036854775807"
        ),
    ]

    @Test("renders the default templates byte for byte", arguments: 0..<rendered.count)
    func renders(_ index: Int) throws {
        let (text, values, expected) = Self.rendered[index]
        let template = try #require(KeyTemplate(text))
        let key = template.render(values)
        #expect(key == expected)
        #expect(key.map(KeyTemplate.isSafeKey) == true)
    }

    /// Values that must not render: missing, empty, too long, or holding a byte outside `[a-z0-9_-]`.
    static let refused: [KeyTemplate.Values] = [
        .init(uuid: uuid, epochMillis: 1, ext: "jpg"),  // no userId
        .init(userId: "", uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: "U", uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: "a/b", uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: "a.b", uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: "é", uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: String(repeating: "a", count: 129), uuid: uuid, epochMillis: 1, ext: "jpg"),
        .init(userId: "u", uuid: uuid, epochMillis: -1, ext: "jpg"),
        .init(userId: "u", uuid: uuid, epochMillis: nil, ext: "jpg"),
        .init(userId: "u", uuid: uuid, epochMillis: 1, ext: "j pg"),
    ]

    @Test("refuses a missing or unsafe value", arguments: 0..<refused.count)
    func refuses(_ index: Int) throws {
        let template = try #require(KeyTemplate("delete/profile/{userId}/{uuid}_{epochMillis}.{ext}"))
        #expect(template.render(Self.refused[index]) == nil)
    }

    @Test("a value of exactly 128 bytes is accepted")
    func longestValue() throws {
        let template = try #require(KeyTemplate("x/{userId}"))
        let value = String(repeating: "a", count: 128)
        #expect(template.render(.init(userId: value)) == "x/" + value)
    }

    @Test("templates with unknown variables, stray braces or unsafe literals are refused")
    func parsing() throws {
        for text in ["", "a/{nope}", "a/{userId", "a/userId}", "/a/{uuid}", "a//{uuid}", "a/../{uuid}", "A/{uuid}"] {
            #expect(KeyTemplate(text) == nil, "\(text)")
        }
        let template = try #require(KeyTemplate("delete/feed/{uuid}/{uuid}_{epochMillis}.{ext}"))
        #expect(template.uses(.uuid) && template.uses(.epochMillis) && !template.uses(.userId))
    }

    /// (template, every problem in order) for the one grammar the validator reports from.
    static let problems: [(String, [KeyTemplate.Problem])] = [
        ("", [.empty]),
        (String(repeating: "a", count: 513) + "{uuid}", [.tooLong]),
        ("a/{uuid", [.unclosedBrace]),
        ("a/{nope}/{uuid}/{other}", [.unknownVariable("nope"), .unknownVariable("other")]),
        ("a/userId}", [.literalCharacter]),
        ("A b/{uuid}", [.literalCharacter]),
        ("/a//b/../{uuid}/", [.doubleDot, .doubleSlash, .leadingSlash, .trailingSlash]),
        ("delete/profile/{userId}/{uuid}_{epochMillis}.{ext}", []),
    ]

    @Test(
        "problems(in:) names every problem, in order, and init refuses exactly those texts",
        arguments: 0..<problems.count)
    func problemList(_ index: Int) {
        let (text, expected) = Self.problems[index]
        #expect(KeyTemplate.problems(in: text).problems == expected)
        #expect((KeyTemplate(text) == nil) == !expected.isEmpty)
    }

    @Test("problems(in:) reports the variables a template uses")
    func variables() {
        #expect(KeyTemplate.problems(in: "a/{chatroomId}/{uuid}_{uuid}.{ext}").variables == [.chatroomId, .uuid, .ext])
        #expect(KeyTemplate.problems(in: "a/{nope}/{imageKey}").variables == [.imageKey])
    }
}
