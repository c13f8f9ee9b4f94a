import Config
import Testing

/// The `limits` and `tls` sections.
@Suite struct LimitsTLSConfigTests {
    @Test func limitsFromTheFileAndTheEnvironment() throws {
        let file =
            #"{"limits":{"enabled":false,"issuePerUserPerMinute":30,"burst":1,"trustForwardedFor":true,"trustedProxies":["10.0.0.0/8"]}}"#
        let environment = [
            "PRESIGN_LIMITS_CONFIRM_PER_ADDRESS_PER_MINUTE": "9000", "PRESIGN_LIMITS_BURST": "60",
            "PRESIGN_LIMITS_TRUSTED_PROXIES": "10.0.0.0/8, ::1",
        ]
        let config = try #require(
            runConfig(load(["--config", "/p.json"], environment: environment, files: ["/p.json": file])))
        #expect(
            config.limits
                == LimitsConfig(
                    enabled: false, issuePerUserPerMinute: 30, confirmPerAddressPerMinute: 9000, burst: 60,
                    trustForwardedFor: true, trustedProxies: ["10.0.0.0/8", "::1"]))
    }

    /// Trusting `X-Forwarded-For` without naming the proxies would let every caller choose its own address:
    /// a problem for `--check-config`, as is an entry that is not an address or a CIDR block.
    @Test func forwardedForNeedsTrustedProxies() {
        let trust = ["PRESIGN_LIMITS_TRUST_FORWARDED_FOR": "true"]
        #expect(keyPaths(load(environment: trust)) == ["limits.trustedProxies"])
        #expect(
            problems(
                load(environment: trust.merging(["PRESIGN_LIMITS_TRUSTED_PROXIES": "127.0.0.1,10.1.0.0/16"]) { $1 })
            )
            .isEmpty)
        let bad = problems(load(environment: ["PRESIGN_LIMITS_TRUSTED_PROXIES": "10.0.0.0/33,proxy.local"]))
        #expect(
            bad.map(\.description) == [
                "limits.trustedProxies: entry 1 must be an IP address or a CIDR block (got \"10.0.0.0/33\" from PRESIGN_LIMITS_TRUSTED_PROXIES)",
                "limits.trustedProxies: entry 2 must be an IP address or a CIDR block (got \"proxy.local\" from PRESIGN_LIMITS_TRUSTED_PROXIES)",
            ])
    }

    /// A Companion bucket holds a whole minute of its rate, or `burst` seconds when that is more.
    @Test(arguments: [(1000, 10, 1000), (1, 10, 1), (120, 120, 240), (5000, 60, 5000)])
    func companionCapacity(_ perMinute: Int, _ burst: Int, _ capacity: Int) {
        #expect(LimitsConfig(burst: burst).companionCapacity(perMinute: perMinute) == capacity)
    }

    @Test(arguments: [
        ("10.0.0.0/8", "10.255.1.2", true), ("10.0.0.0/8", "11.0.0.1", false), ("192.168.1.7", "192.168.1.7", true),
        ("192.168.1.7", "192.168.1.8", false), ("::1", "::1", true), ("fd00::/8", "fdab::1", true),
        ("fd00::/8", "fe80::1", false), ("127.0.0.0/8", "::ffff:127.0.0.9", true), ("0.0.0.0/0", "8.8.8.8", true),
        ("2001:db8::/32", "2001:db8:0:0:0:0:0:1", true), ("2001:db8::/32", "10.0.0.1", false),
    ])
    func addressRanges(_ range: String, _ address: String, _ inside: Bool) throws {
        let r = try #require(AddressRange(range))
        let a = try #require(AddressRange.parseAddress(address))
        #expect(r.contains(a) == inside)
    }

    @Test(arguments: [
        "", "1.2.3", "1.2.3.4.5", "256.1.1.1", "01.2.3.4", "1.2.3.4/", "1.2.3.4/x", "::1::2", "12345::", ":1",
        "1.2.3.4/-1", "1:2:3:4:5:6:7:8:9", "fe80::1%eth0",
    ])
    func addressRangesRefused(_ text: String) {
        #expect(AddressRange(text) == nil)
    }

    /// A bucket holds `burst` seconds of its rate, rounded up, at least one request.
    @Test(arguments: [(120, 10, 20), (600, 10, 100), (3000, 10, 500), (1, 1, 1), (1, 3600, 60), (59, 1, 1), (61, 1, 2)])
    func bucketCapacity(_ perMinute: Int, _ burst: Int, _ capacity: Int) {
        #expect(LimitsConfig(burst: burst).capacity(perMinute: perMinute) == capacity)
    }

    @Test(arguments: [
        ("issuePerUserPerMinute", 1, 1_000_000), ("issuePerAddressPerMinute", 1, 1_000_000),
        ("confirmPerUserPerMinute", 1, 1_000_000), ("confirmPerAddressPerMinute", 1, 1_000_000),
        ("uppyPerUserPerMinute", 1, 1_000_000), ("uppyPerAddressPerMinute", 1, 1_000_000), ("burst", 1, 3600),
        ("syncIntervalMs", 10, 60_000),
    ])
    func limitBounds(_ key: String, _ low: Int, _ high: Int) {
        func found(_ value: Int) -> [String] {
            problems(load(environment: ["PRESIGN_LIMITS_" + snake(key): "\(value)"])).map(\.description)
        }
        #expect(found(low).isEmpty && found(high).isEmpty)
        let variable = "PRESIGN_LIMITS_" + snake(key)
        #expect(found(low - 1) == ["limits.\(key): must be \(low)...\(high) (got \(low - 1) from \(variable))"])
        #expect(found(high + 1) == ["limits.\(key): must be \(low)...\(high) (got \(high + 1) from \(variable))"])
        #expect(keyPaths(load(environment: [variable: "many"])) == ["limits.\(key)"])
    }

    /// `issuePerUserPerMinute` → `ISSUE_PER_USER_PER_MINUTE`.
    func snake(_ camel: String) -> String {
        camel.reduce(into: "") { result, character in
            if character.isUppercase { result += "_" }
            result += character.uppercased()
        }
    }

    @Test func tlsNeedsReadableFilesWhenEnabled() throws {
        let files = [
            "/tls/cert.pem": "-----BEGIN CERTIFICATE-----", "/tls/key.pem": "-----BEGIN PRIVATE KEY-----TOPSECRET",
        ]
        let enabled = [
            "PRESIGN_TLS_ENABLED": "true", "PRESIGN_TLS_CERTIFICATE_FILE": "/tls/cert.pem",
            "PRESIGN_TLS_PRIVATE_KEY_FILE": "/tls/key.pem", "PRESIGN_TLS_MIN_VERSION": "1.3",
        ]
        let config = try #require(runConfig(load(environment: enabled, files: files)))
        #expect(
            config.tls
                == TLSConfig(
                    enabled: true, certificateFile: "/tls/cert.pem", privateKeyFile: "/tls/key.pem", minVersion: .tls13)
        )
        #expect(!config.redactedJSON().contains("TOPSECRET"))

        #expect(
            problems(load(environment: ["PRESIGN_TLS_ENABLED": "true"])).map(\.description) == [
                "tls.certificateFile: is required when tls.enabled is true",
                "tls.privateKeyFile: is required when tls.enabled is true",
            ])
        var missingKey = enabled
        missingKey["PRESIGN_TLS_PRIVATE_KEY_FILE"] = "/tls/missing.pem"
        #expect(
            problems(load(environment: missingKey, files: files)).map(\.description) == [
                #"tls.privateKeyFile: cannot read "/tls/missing.pem": No such file or directory (from PRESIGN_TLS_PRIVATE_KEY_FILE)"#
            ])
        // Disabled: the paths are kept but not read.
        let disabled = ["PRESIGN_TLS_CERTIFICATE_FILE": "/nowhere.pem", "PRESIGN_TLS_PRIVATE_KEY_FILE": "/nowhere.key"]
        #expect(runConfig(load(environment: disabled))?.tls.certificateFile == "/nowhere.pem")
    }

    @Test(arguments: [("1.2", true), ("1.3", true), ("1.1", false), ("1", false), ("TLSv1.2", false), ("", false)])
    func tlsMinVersion(_ version: String, _ valid: Bool) {
        let result = load(environment: ["PRESIGN_TLS_MIN_VERSION": version])
        #expect(keyPaths(result) == (valid ? [] : ["tls.minVersion"]), "\(version)")
    }
}
