import Foundation

/// Runs one of the project's Python cross-check scripts (`scripts/boto3_*.py`): JSON in on standard
/// input, JSON out on standard output. A script that cannot run (no python3, no boto3) is an error,
/// never a silent pass.
public enum PythonScript {
    /// Why a script could not run.
    public struct Failure: Error, CustomStringConvertible {
        /// The script, its exit status and what it wrote to standard error.
        public let description: String
    }

    /// Runs `scripts/<name>` from the package root on `input` and decodes what it prints as `Output`.
    public static func run<Input: Encodable, Output: Decodable>(
        _ name: String, input: Input, as: Output.Type = Output.self
    ) throws -> Output {
        let script = ServerProcess.packageRoot.appendingPathComponent("scripts/\(name)")
        let directory = URL(fileURLWithPath: Temporary.directory("presignd-py"))
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("in.json")
        let outputFile = directory.appendingPathComponent("out.json")
        let errorFile = directory.appendingPathComponent("err.txt")
        try JSONEncoder().encode(input).write(to: inputFile)
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = try FileHandle(forWritingTo: errorFile)
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let errors = String(decoding: (try? Data(contentsOf: errorFile)) ?? Data(), as: UTF8.self)
            throw Failure(
                description: "python3 \(script.path) exited with \(process.terminationStatus) "
                    + "(python3 and boto3 are required: pip install boto3): \(errors)")
        }
        return try JSONDecoder().decode(Output.self, from: Data(contentsOf: outputFile))
    }
}

/// The cases `scripts/boto3_crosscheck.py` reads and the URLs botocore signs for them.
public enum BotocorePresign {
    /// One URL to presign.
    public struct Case: Codable, Sendable {
        public var method: String
        public var bucket: String
        public var key: String
        public var region: String
        public var endpoint: String
        public var addressing: String
        public var expires: Int
        public var epochSeconds: Int64
        public var signedHeaders: [String: String]
        public var sessionToken: String?

        /// A case with these fields.
        public init(
            method: String, bucket: String, key: String, region: String, endpoint: String, addressing: String,
            expires: Int, epochSeconds: Int64, signedHeaders: [String: String], sessionToken: String?
        ) {
            self.method = method
            self.bucket = bucket
            self.key = key
            self.region = region
            self.endpoint = endpoint
            self.addressing = addressing
            self.expires = expires
            self.epochSeconds = epochSeconds
            self.signedHeaders = signedHeaders
            self.sessionToken = sessionToken
        }
    }

    /// The script's input: the credentials and the cases.
    public struct Input: Codable, Sendable {
        public var accessKeyId: String
        public var secretAccessKey: String
        public var cases: [Case]

        /// Input for these credentials and cases.
        public init(accessKeyId: String, secretAccessKey: String, cases: [Case]) {
            self.accessKeyId = accessKeyId
            self.secretAccessKey = secretAccessKey
            self.cases = cases
        }
    }

    /// The script's output: botocore's version and one URL per case.
    public struct Output: Codable, Sendable {
        /// One signed URL and its signature.
        public struct Result: Codable, Sendable {
            public var url: String
            public var signature: String
        }
        public var botocore: String
        public var results: [Result]
    }

    /// Runs the script on `input`.
    public static func run(_ input: Input) throws -> Output {
        try PythonScript.run("boto3_crosscheck.py", input: input)
    }
}
