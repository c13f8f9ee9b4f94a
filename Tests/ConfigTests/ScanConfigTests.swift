import Config
import Testing

/// The `scan` section and `types.<T>.scan`: defaults, the environment, the file, and what the validator
/// refuses.
@Suite struct ScanConfigTests {
    private func paths(_ json: String, environment: [String: String] = [:]) -> [String] {
        problems(load(["--config", "/p.json"], environment: environment, files: ["/p.json": json])).map(\.keyPath)
    }

    @Test func offForEveryTypeByDefaultWithTheDocumentedBounds() throws {
        let c = try #require(runConfig(load()))
        #expect(c.scan == ScanConfig())
        #expect(c.scan.clamdAddress == "tcp://127.0.0.1:3310" && c.scan.maxBytes == 26_214_400)
        #expect(c.scan.timeoutMs == 30_000 && c.scan.chunkBytes == 65_536 && c.scan.pollIntervalMs == 500)
        #expect(c.scan.retryBaseMs == 1000 && c.scan.retryMaxMs == 60_000)
        #expect(c.types.allSatisfy { $0.scan == .off })
    }

    @Test func theEnvironmentAndTheFileSetThem() throws {
        let c = try #require(
            runConfig(
                load(
                    ["--config", "/p.json"],
                    environment: [
                        "PRESIGN_SCAN_CLAMD_ADDRESS": "unix:/run/clamav/clamd.ctl", "PRESIGN_SCAN_MAX_BYTES": "1000",
                        "PRESIGN_SCAN_TIMEOUT_MS": "2000", "PRESIGN_TYPES": #"{"FEED":{"scan":"clamav"}}"#,
                    ],
                    files: ["/p.json": #"{"types":{"PROFILE":{"scan":"clamav"}},"scan":{"retryMaxMs":5000}}"#])))
        #expect(c.scan.clamdAddress == "unix:/run/clamav/clamd.ctl" && c.scan.maxBytes == 1000)
        #expect(c.scan.timeoutMs == 2000 && c.scan.retryMaxMs == 5000)
        #expect(c.type(named: "PROFILE")?.scan == .clamav && c.type(named: "FEED")?.scan == .clamav)
        #expect(c.type(named: "IMAGE")?.scan == .off)
        #expect(c.redactedJSON().contains(#""scan":"clamav""#) || c.redactedJSON().contains(#""scan": "clamav""#))
    }

    @Test func badValuesAreReportedWithTheirPaths() {
        #expect(paths(#"{"types":{"PROFILE":{"scan":"yes"}}}"#) == ["types.PROFILE.scan"])
        #expect(paths(#"{"scan":{"clamdAddress":"127.0.0.1:3310"}}"#) == ["scan.clamdAddress"])
        #expect(paths(#"{"scan":{"clamdAddress":"tcp://host:99999"}}"#) == ["scan.clamdAddress"])
        #expect(paths(#"{"scan":{"clamdAddress":"unix:relative"}}"#) == ["scan.clamdAddress"])
        #expect(paths(#"{"scan":{"maxBytes":0}}"#) == ["scan.maxBytes"])
        #expect(paths(#"{"scan":{"timeoutMs":5}}"#) == ["scan.timeoutMs"])
        #expect(paths(#"{"scan":{"chunkBytes":10}}"#) == ["scan.chunkBytes"])
        #expect(paths(#"{"scan":{"retryBaseMs":2000,"retryMaxMs":1000}}"#) == ["scan.retryMaxMs"])
        #expect(paths(#"{"scan":{"pollIntervalMs":1}}"#) == ["scan.pollIntervalMs"])
        #expect(paths("{}", environment: ["PRESIGN_SCAN_MAX_BYTES": "lots"]) == ["scan.maxBytes"])
    }
}
