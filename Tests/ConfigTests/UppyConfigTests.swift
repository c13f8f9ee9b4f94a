import Config
import Testing

/// The `uppy` and `cors` sections: defaults, environment names and what the validator refuses.
@Suite struct UppyConfigTests {
    private func paths(_ json: String) -> [String] {
        problems(load(["--config", "/p.json"], files: ["/p.json": json])).map(\.keyPath)
    }

    @Test func defaultsAreOffAndStrict() throws {
        let c = try #require(runConfig(load()))
        #expect(c.uppy == UppyConfig())
        #expect(!c.uppy.enabled)
        #expect(c.uppy.prefix == "/s3")
        #expect(c.uppy.paramsMethod == .put)
        #expect(c.cors.allowedOrigins.isEmpty)
        #expect(!c.cors.allowCredentials)
        #expect(c.cors.allowedHeaders.contains("uppy-auth-token"))
    }

    @Test func environmentSetsThem() throws {
        let c = try #require(
            runConfig(
                load(environment: [
                    "PRESIGN_UPPY_ENABLED": "true", "PRESIGN_UPPY_PREFIX": "/uploads/s3",
                    "PRESIGN_UPPY_PARAMS_METHOD": "post",
                    "PRESIGN_CORS_ALLOWED_ORIGINS": "https://a.test,http://b.test:8080",
                ])))
        #expect(c.uppy.enabled)
        #expect(c.uppy.prefix == "/uploads/s3")
        #expect(c.uppy.paramsMethod == .post)
        #expect(c.cors.allowedOrigins == ["https://a.test", "http://b.test:8080"])
    }

    @Test(arguments: [
        ("/s3", true), ("/uploads/s3", true), ("s3", false), ("/", false), ("/s3/", false), ("/S3", false),
        ("/a//b", false), ("/images", false), ("/images/s3", false), ("/v1", false), ("/s3?x", false),
    ])
    func prefix(_ value: String, _ valid: Bool) {
        #expect(paths(#"{"uppy":{"prefix":"\#(value)"}}"#) == (valid ? [] : ["uppy.prefix"]), "\(value)")
    }

    @Test(arguments: [
        ("https://app.example.com", true), ("http://127.0.0.1:8080", true), ("*", false),
        ("https://app.example.com/", false), ("https://App.example.com", false), ("ftp://a.test", false),
        ("https://a.test/path", false),
    ])
    func origin(_ value: String, _ valid: Bool) {
        #expect(
            paths(#"{"cors":{"allowedOrigins":["\#(value)"]}}"#) == (valid ? [] : ["cors.allowedOrigins[0]"]),
            "\(value)")
    }

    @Test func otherRefusals() {
        #expect(paths(#"{"uppy":{"enabled":true,"defaultType":"NOPE"}}"#) == ["uppy.defaultType"])
        #expect(paths(#"{"uppy":{"defaultType":"NOPE"}}"#) == [])  // checked once the routes are on
        #expect(paths(#"{"uppy":{"urlExpiresSeconds":0}}"#) == ["uppy.urlExpiresSeconds"])
        #expect(paths(#"{"uppy":{"abortAfterSeconds":10}}"#) == ["uppy.abortAfterSeconds"])
        #expect(paths(#"{"uppy":{"completeMaxBodyBytes":10}}"#) == ["uppy.completeMaxBodyBytes"])
        #expect(paths(#"{"uppy":{"paramsMethod":"patch"}}"#) == ["uppy.paramsMethod"])
        #expect(paths(#"{"cors":{"allowedHeaders":["Authorization"]}}"#) == ["cors.allowedHeaders[0]"])
        #expect(paths(#"{"cors":{"maxAgeSeconds":-1}}"#) == ["cors.maxAgeSeconds"])
    }

    @Test func filenameVariableAndLiteralPrefix() throws {
        let t = try #require(KeyTemplate("videos/{userId}/{uuid}/{filename}.{ext}"))
        #expect(t.literalPrefix == "videos/")
        #expect(KeyTemplate("{imageKey}")?.literalPrefix == "")
        #expect(t.render(.init(userId: "7", uuid: "u", ext: "mp4", filename: "my-clip")) == "videos/7/u/my-clip.mp4")
        #expect(t.render(.init(userId: "7", uuid: "u", ext: "mp4", filename: "../x")) == nil)
        #expect(t.render(.init(userId: "7", uuid: "u", ext: "mp4")) == nil)
    }
}
