import Config
import JSON
import Testing

/// `compat`: the built-in profiles, an operator's routes, and the problems `--check-config` reports.
@Suite struct CompatConfigTests {
    /// A config file with `routes` as `compat.routes`.
    static func withRoutes(_ routes: String, environment: [String: String] = [:]) -> Result<
        CommandLineAction, ConfigError
    > {
        load(
            ["--config", "/c.json"], environment: environment, files: ["/c.json": #"{"compat":{"routes":\#(routes)}}"#])
    }

    @Test func offByDefault() {
        #expect(PresigndConfig.defaults.compat == CompatConfig())
        #expect(PresigndConfig.defaults.compat.activeRoutes.isEmpty)
    }

    @Test func profilesAreSwitchedOnByNameFromTheEnvironmentOrTheFile() throws {
        let env = try #require(runConfig(load(environment: ["PRESIGN_COMPAT_PROFILES": "clientP, clientB"])))
        #expect(env.compat.profiles == ["clientP", "clientB"])
        #expect(
            env.compat.activeRoutes.map { "\($0.method) \($0.path)" } == [
                "PUT /v2/users/me/profile-image", "POST /api/v1/quests/images/signed-url",
                "POST /api/v1/quests/{questId}/active", "PATCH /api/v1/quests/{questId}/active",
            ])
        let file = try #require(
            runConfig(load(["--config", "/c.json"], files: ["/c.json": #"{"compat":{"profiles":["clientB"]}}"#])))
        #expect(file.compat.activeRoutes.count == 3)
    }

    @Test func theProfilesSayWhatTheTableSays() throws {
        let p = try #require(CompatProfiles.routes(of: "clientP")?.first)
        #expect(p.operation == .replace)
        #expect(p.keyField == "profileImageUrl")
        #expect(p.keyForm == .objectKey)
        #expect(p.keyPrefix == "delete/")
        #expect(p.slot == "profile")
        #expect(p.deletePrevious)
        #expect(
            p.success.body
                == (try JSONValue(parsing: Array(#"{"code":"2000","data":{"profileImageUrl":"{url}"}}"#.utf8))))
        #expect(p.errors["IMAGE_NOT_UPLOADED"]?.status == 404)
        let b = try #require(CompatProfiles.routes(of: "clientB"))
        #expect(b[0].operation == .issueByKey)
        #expect(b[0].expiresSeconds == 900)
        #expect(b[1].slot == "quest:{questId}" && b[2].slot == "quest:{questId}")
        #expect(b[1].method == "POST" && b[1].operation == .confirm)
        #expect(b[2].method == "PATCH" && b[2].operation == .replace)
        #expect(b.allSatisfy { $0.errors["default"]?.body["data"]?.isNull == true })
    }

    @Test func unknownProfileIsAProblem() {
        let result = load(environment: ["PRESIGN_COMPAT_PROFILES": "clientP,clientZ"])
        #expect(keyPaths(result) == ["compat.profiles[1]"])
        #expect(problems(result).first?.message.contains("clientP, clientB") == true)
    }

    @Test func anOperatorRouteLoadsAndPrints() throws {
        let route = #"""
            [{"name":"a","method":"PUT","path":"/app/pets/{petId}/photo","operation":"replace","keyField":"photoId",
              "slot":"pet:{petId}","success":{"body":{"ok":true,"url":"{url}","pet":"{param.petId}"}},
              "errors":{"default":{"status":400,"body":{"ok":false,"why":"{message}","fields":"{fieldErrors}"}}}}]
            """#
        let config = try #require(runConfig(Self.withRoutes(route)))
        let r = try #require(config.compat.routes.first)
        #expect(r.pathParameters == ["petId"])
        #expect(r.metadata == nil)
        #expect(r.errors["default"]?.status == 400)
        // --check-config prints it back in the same form.
        let printed = try JSONValue(parsing: Array(config.redactedJSON().utf8))
        #expect(printed["compat"]?["routes"]?.arrayValue?.first?["slot"]?.stringValue == "pet:{petId}")
        #expect(
            printed["compat"]?["routes"]?.arrayValue?.first?["success"]?["body"]?["pet"]?.stringValue == "{param.petId}"
        )
    }

    @Test(
        "each problem of a route is reported at its key path",
        arguments: [
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"body":{}},"colour":1}"#,
                "compat.routes[0].colour"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"fly","success":{"body":{}}}"#,
                "compat.routes[0].operation"
            ),
            (#"{"name":"a","method":"POST","path":"/x","operation":"confirm"}"#, "compat.routes[0].success"),
            (
                #"{"name":"a","method":"TRACE","path":"/x","operation":"confirm","success":{"body":{}}}"#,
                "compat.routes[0].method"
            ),
            (
                #"{"name":"a","method":"GET","path":"/x","operation":"confirm","success":{"body":{}}}"#,
                "compat.routes[0].method"
            ),
            (
                #"{"name":"a","method":"POST","path":"x","operation":"confirm","success":{"body":{}}}"#,
                "compat.routes[0].path"
            ),
            (
                #"{"name":"a","method":"POST","path":"/images","operation":"confirm","success":{"body":{}}}"#,
                "compat.routes[0].path"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"replace","success":{"body":{}}}"#,
                "compat.routes[0].slot"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","slot":"s:{nope}","success":{"body":{}}}"#,
                "compat.routes[0].slot"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"body":{"u":"{signedUrl}"}}}"#,
                "compat.routes[0].success.body"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"body":{"u":"{url"}}}"#,
                "compat.routes[0].success.body"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"status":700,"body":{}}}"#,
                "compat.routes[0].success.status"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"body":{}},"errors":{"OOPS":{"body":{}}}}"#,
                "compat.routes[0].errors.OOPS"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","success":{"body":{}},"errors":{"default":{"body":{"m":"{url}"}}}}"#,
                "compat.routes[0].errors.default.body"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","metadata":["petId"],"success":{"body":{}}}"#,
                "compat.routes[0].metadata[0]"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","types":["AVATAR"],"success":{"body":{}}}"#,
                "compat.routes[0].types[0]"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"issueByKey","keyForm":"objectKey","success":{"body":{}}}"#,
                "compat.routes[0].keyForm"
            ),
            (
                #"{"name":"a","method":"GET","path":"/x","operation":"issueByType","success":{"body":{}}}"#,
                "compat.routes[0].type"
            ),
            (
                #"{"name":"a","method":"GET","path":"/x","operation":"issueByType","type":"IMAGE","success":{"body":{}}}"#,
                "compat.routes[0].type"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"issueByKey","expiresSeconds":0,"success":{"body":{}}}"#,
                "compat.routes[0].expiresSeconds"
            ),
            (
                #"{"name":"a","method":"POST","path":"/x","operation":"confirm","keyPrefix":"delete/","success":{"body":{}}}"#,
                "compat.routes[0].keyPrefix"
            ),
        ])
    func routeProblems(route: String, keyPath: String) {
        let result = Self.withRoutes("[\(route)]")
        #expect(keyPaths(result).contains(keyPath), "\(problems(result))")
    }

    /// A type whose chatroomId is `required` cannot be issued by key (a body names no chatroomId): the
    /// default CHAT (issue 19, point 11) and one configured so; CHATROOM_PROFILE makes one up, so it can.
    @Test func issueByKeyRefusesATypeThatRequiresAChatroomId() {
        func route(_ type: String) -> String {
            #"{"name":"a","method":"POST","path":"/x","operation":"issueByKey","type":"\#(type)","success":{"body":{}}}"#
        }
        let byDefault = Self.withRoutes("[\(route("CHAT"))]")
        #expect(keyPaths(byDefault).contains("compat.routes[0].type"), "\(problems(byDefault))")
        let required = load(
            ["--config", "/c.json"],
            files: [
                "/c.json":
                    #"{"types":{"CHATROOM_PROFILE":{"chatroomId":"required"}},"compat":{"routes":[\#(route("CHATROOM_PROFILE"))]}}"#
            ])
        #expect(keyPaths(required).contains("compat.routes[0].type"), "\(problems(required))")
        let serverMade = Self.withRoutes("[\(route("CHATROOM_PROFILE"))]")
        #expect(!keyPaths(serverMade).contains("compat.routes[0].type"), "\(problems(serverMade))")
    }

    @Test func twoRoutesOnOneMethodAndPathAreAProblem() {
        let one =
            #"{"name":"a","method":"PATCH","path":"/api/v1/quests/{id}/active","operation":"confirm","success":{"body":{}}}"#
        let result = Self.withRoutes("[\(one)]", environment: ["PRESIGN_COMPAT_PROFILES": "clientB"])
        #expect(keyPaths(result) == ["compat.routes[0].path"])
        let other = #"{"name":"a","method":"PATCH","path":"/b/{id}","operation":"confirm","success":{"body":{}}}"#
        let twice = Self.withRoutes("[\(other),\(other)]")
        #expect(Set(keyPaths(twice)) == ["compat.routes[1].path", "compat.routes[1].name"])
    }

    @Test func placeholdersOfTemplateStrings() {
        #expect(CompatTemplate.pieces("{url}") == [.placeholder("url")])
        #expect(CompatTemplate.pieces("at {param.id}!") == [.text("at "), .placeholder("param.id"), .text("!")])
        #expect(CompatTemplate.pieces("plain") == [.text("plain")])
        #expect(CompatTemplate.pieces("{}") == nil)
        #expect(CompatTemplate.pieces("{a b}") == nil)
        #expect(CompatTemplate.pieces("a}") == nil)
        #expect(CompatTemplate.pieces("{open") == nil)
    }
}
