// swift-tools-version:6.0
// presignd: a presigned-URL issuing HTTP server. Only the Swift toolchain and Debian's C libraries.
import PackageDescription

let package = Package(
    name: "presignd",
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .executable(name: "presignd", targets: ["presignd"]),
        .library(name: "HTTP1", targets: ["HTTP1"]),
        .library(name: "SigV4", targets: ["SigV4"]),
        .library(name: "JSON", targets: ["JSON"]),
        .library(name: "ImageProbe", targets: ["ImageProbe"]),
        // The client side (Foundation and URLSession only; never a server module): docs/client.md
        .library(name: "PresignClient", targets: ["PresignClient"]),
        .executable(name: "presign-upload", targets: ["PresignUpload"]),
    ],
    targets: [
        // C shims and system libraries
        .target(name: "CLinux"),
        .systemLibrary(name: "COpenSSL", pkgConfig: "openssl", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CSQLite", pkgConfig: "sqlite3", providers: [.apt(["libsqlite3-dev"])]),
        // libpq's headers only: the library is loaded on first use by CPostgresLoader (dlopen).
        .systemLibrary(name: "CPostgres", providers: [.apt(["libpq-dev"])]),
        .target(name: "CPostgresLoader", dependencies: ["CPostgres"], linkerSettings: [.linkedLibrary("dl")]),

        // The bottom of the graph: threads, the monitor, clocks, whole-file reads, civil dates and timestamps
        .target(name: "System", dependencies: ["CLinux"]),

        // Pure cores
        .target(name: "HTTP1"),
        // The log sink, its level and the field-based JSON lines (JSON's escaper, the only one)
        .target(name: "Logging", dependencies: ["JSON", "System"]),
        .target(name: "JSON"),
        .target(name: "ImageProbe"),
        .target(name: "Crypto", dependencies: ["COpenSSL"]),
        .target(name: "SigV4", dependencies: ["Crypto", "System"]),
        // Explain mode's pure analysis of a refused URL, over SigV4's own steps.
        .target(name: "Explain", dependencies: ["SigV4", "Crypto", "System"]),
        // The built-in defaults are Sources/Config/presignd.json, compiled in (config/presignd.json links to it).
        .target(
            name: "Config", dependencies: ["JSON", "Crypto", "System"], resources: [.embedInCode("presignd.json")]),
        .target(name: "Auth", dependencies: ["Crypto", "JSON", "System"]),
        // The store's upload events: S3 event JSON (RGW, MinIO, AWS through SNS) and SNS verification.
        .target(name: "StoreEvents", dependencies: ["JSON", "Crypto"]),
        // Outbound webhooks, pure: Standard Webhooks signing, the secret, the retry schedule, endpoint URLs.
        .target(name: "Webhooks", dependencies: ["Crypto"]),
        // clamd's INSTREAM protocol over a blocking socket: the malware scan before publishing.
        .target(name: "Clamd", dependencies: ["System"]),

        // I/O shells
        .target(name: "HTTPServer", dependencies: ["HTTP1", "Crypto", "Logging", "System", "CLinux", "COpenSSL"]),
        // The blocking HTTP/1.1 client (pool, resolver, TLS, framing) the server's own calls go through.
        .target(name: "HTTPClient", dependencies: ["Crypto", "System", "COpenSSL", "CLinux"]),
        .target(name: "ObjectStore", dependencies: ["HTTPClient", "SigV4", "Crypto", "System"]),
        .target(
            name: "Records",
            dependencies: ["CSQLite", "CPostgres", "CPostgresLoader", "CLinux", "Crypto", "System"]
        ),
        .target(
            name: "CloudCredentials", dependencies: ["HTTPClient", "ObjectStore", "SigV4", "Crypto", "JSON", "System"]),
        // The delivery of the webhook outbox: leased per endpoint, over HTTPClient, on threads of its own.
        .target(name: "WebhookDelivery", dependencies: ["HTTPClient", "Records", "Webhooks", "System"]),

        // The upload lifecycle: types, issuing, confirming, ownership, storage, sweeps (no HTTP module)
        .target(
            name: "Uploads",
            dependencies: [
                "Config", "Records", "ObjectStore", "SigV4", "Crypto", "ImageProbe", "StoreEvents", "System", "JSON",
                "Clamd",
            ]),

        // The application (its front doors), the command-line modes and the executables
        .target(
            name: "App",
            dependencies: [
                "HTTPServer", "HTTP1", "SigV4", "Crypto", "ObjectStore", "Records", "Config", "JSON", "Auth",
                "System", "ImageProbe", "CloudCredentials", "Uploads", "HTTPClient", "Logging", "Explain",
                "StoreEvents", "Webhooks", "WebhookDelivery",
            ],
            // The API document, served at /openapi.json and /openapi.yaml (docs/openapi.json links to it).
            resources: [.embedInCode("openapi.json")]),
        // The command-line modes of the binary: the dispatch, healthcheck, explain.
        .target(
            name: "Commands",
            dependencies: [
                "App", "Auth", "Config", "Explain", "HTTPClient", "Logging", "ObjectStore", "System", "Uploads",
            ]),
        .executableTarget(
            name: "presignd",
            dependencies: ["App", "Commands", "Config", "HTTPServer", "Crypto", "Logging", "System", "CLinux"]),
        .executableTarget(name: "PresignBench", dependencies: ["SigV4", "Crypto", "System"]),

        // The client library for apps and its command-line uploader (scripts/check-modules.py keeps
        // them off every server module).
        .target(name: "PresignClient"),
        .executableTarget(name: "PresignUpload", dependencies: ["PresignClient"]),

        // Tests (Swift Testing), with shared helpers to drive the real binary over sockets
        .target(name: "TestSupport", dependencies: ["HTTPClient"], path: "Tests/TestSupport"),
        // Store calls only tests make (PutObject, HeadBucket), kept out of the server's module.
        .target(
            name: "ObjectStoreTestSupport", dependencies: ["ObjectStore", "HTTPClient", "Crypto"],
            path: "Tests/ObjectStoreTestSupport"),
        // The in-memory record store (held to the stores' conformance suites) and stores named by URL text.
        .target(name: "RecordsTestSupport", dependencies: ["Records", "Config"], path: "Tests/RecordsTestSupport"),
        // In-memory storage and a recording intent sink for the lifecycle's in-process tests.
        .target(
            name: "UploadsTestSupport", dependencies: ["Uploads", "ObjectStore", "Records", "System", "Crypto"],
            path: "Tests/UploadsTestSupport"),
        // The application in process for AppTests: `AppCore` built as the binary builds it, and the
        // in-memory client that carries requests to its router through the server's own pieces.
        .target(
            name: "AppTestSupport",
            dependencies: ["App", "Config", "HTTP1", "HTTPServer", "JSON", "Logging", "System", "TestSupport"],
            path: "Tests/AppTestSupport"),
        .testTarget(name: "HTTP1Tests", dependencies: ["HTTP1"], resources: [.copy("Fixtures")]),
        .testTarget(name: "JSONTests", dependencies: ["JSON", "TestSupport"]),
        .testTarget(name: "ImageProbeTests", dependencies: ["ImageProbe"], resources: [.copy("Fixtures")]),
        .testTarget(name: "SystemTests", dependencies: ["System"]),
        .testTarget(name: "LoggingTests", dependencies: ["Logging", "System"]),
        .testTarget(name: "CryptoTests", dependencies: ["Crypto", "COpenSSL", "TestSupport"]),
        .testTarget(
            name: "SigV4Tests", dependencies: ["SigV4", "Crypto", "TestSupport"], resources: [.copy("Fixtures")]),
        .testTarget(name: "ExplainTests", dependencies: ["Explain", "SigV4", "Crypto", "TestSupport"]),
        .testTarget(name: "ConfigTests", dependencies: ["Config", "JSON", "Crypto"]),
        .testTarget(name: "AuthTests", dependencies: ["Auth", "Crypto", "JSON"]),
        .testTarget(
            name: "StoreEventsTests", dependencies: ["StoreEvents", "Crypto", "JSON", "TestSupport"],
            resources: [.copy("Fixtures")]),
        .testTarget(
            name: "RecordsTests",
            dependencies: [
                "Records", "RecordsTestSupport", "Config", "Crypto", "System", "TestSupport",
            ],
            resources: [.copy("Fixtures")]),
        .testTarget(name: "HTTPClientTests", dependencies: ["HTTPClient", "TestSupport"]),
        .testTarget(name: "ClamdTests", dependencies: ["Clamd", "TestSupport"]),
        .testTarget(
            name: "ObjectStoreTests",
            dependencies: [
                "ObjectStore", "HTTPClient", "ObjectStoreTestSupport", "SigV4", "Crypto", "TestSupport", "StoreEvents",
            ]),
        .testTarget(
            name: "CloudCredentialsTests",
            dependencies: ["CloudCredentials", "HTTPClient", "SigV4", "Crypto", "JSON", "TestSupport"]),
        .testTarget(
            name: "HTTPServerTests",
            dependencies: ["HTTPServer", "HTTP1", "Logging", "System", "CLinux", "TestSupport"]),
        .testTarget(name: "PresignClientTests", dependencies: ["PresignClient", "TestSupport", "Crypto"]),
        .testTarget(
            name: "UploadsTests",
            dependencies: [
                "Uploads", "UploadsTestSupport", "Config", "Records", "RecordsTestSupport", "ObjectStore", "SigV4",
                "Crypto", "ImageProbe", "System", "TestSupport", "JSON", "Clamd",
            ]),
        .testTarget(
            name: "AppTests",
            dependencies: [
                "App", "Auth", "Config", "HTTP1", "HTTPServer", "SigV4", "Crypto", "Records", "ObjectStore", "JSON",
                "System", "ObjectStoreTestSupport", "TestSupport", "ImageProbe", "CloudCredentials", "Uploads",
                "UploadsTestSupport", "RecordsTestSupport", "HTTPClient", "Logging", "Explain", "AppTestSupport",
                "Commands",
            ]),
        .testTarget(
            name: "WebhooksTests",
            dependencies: [
                "Webhooks", "WebhookDelivery", "Records", "RecordsTestSupport", "HTTPClient", "Crypto", "System",
                "TestSupport",
            ]),
        .testTarget(name: "CommandsTests", dependencies: ["Commands", "Config", "Crypto", "SigV4", "TestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)
