import App
import Config
import Explain

/// `presignd explain URL [--header 'Name: value']... [--method M] [--error-xml FILE]`: the explain
/// route's answer on the command line, with the server's own configuration and credentials (no
/// server needs to run, and `explain.enabled` is not needed). When the URL is exactly what the server
/// signs and storage's error says `SignatureDoesNotMatch`, the server's credentials are checked against
/// storage (a signed HEAD of the bucket).
public enum ExplainCommand {
    /// What the command prints and its exit status: 0 no difference, 1 differences, 2 usage or
    /// configuration (the credentials are missing, the error XML file cannot be read, a header line
    /// has no colon).
    public struct Outcome: Sendable {
        /// The JSON answer (pretty-printed), or the reason for status 2.
        public var output: String
        /// The exit status.
        public var status: Int32
    }

    /// Explains `arguments` at `nowSeconds` with `config`'s signer; `readFile` reads `--error-xml`.
    public static func run(
        config: PresigndConfig, arguments: ExplainArguments, nowSeconds: Int64, environment: [String: String] = [:],
        readFile: (String) throws -> [UInt8] = ConfigLoader.readFile(atPath:)
    ) -> Outcome {
        // The credentials the server would sign with: the same chain, asked once (its log lines go to stderr).
        let tools: ExplainService.Tools
        do {
            tools = try ExplainService.tools(config: config, environment: environment, nowSeconds: nowSeconds)
        } catch {
            return Outcome(output: failure(error), status: 2)
        }
        var headers: [(name: String, value: String)] = []
        for line in arguments.headers {
            guard let header = ExplainService.header(line: line) else {
                return Outcome(output: "presignd explain: --header must be 'Name: value' (got \(line))", status: 2)
            }
            headers.append(header)
        }
        var storage: StorageErrorReport?
        if let path = arguments.errorXMLPath {
            do {
                storage = ExplainService.storageReport(xml: try readFile(path))
            } catch {
                return Outcome(output: "presignd explain: cannot read --error-xml \(path): \(error)", status: 2)
            }
        }
        let explanation = tools.explainer.explain(
            ExplainInput(
                url: arguments.url, method: arguments.method?.uppercased(), headers: headers.isEmpty ? nil : headers,
                storage: storage), now: nowSeconds, checkCredentials: tools.checkCredentials)
        return Outcome(
            output: explanation.jsonValue.prettyPrinted(), status: explanation.hasDifferences ? 1 : 0)
    }

    /// The reason the explainer could not be made. Without credentials (a second shell beside
    /// `scripts/run.sh`, which sets them for its own process only) it leads with the two variables to
    /// set, and the command that sets them for the local RGW; the chain's own account follows.
    static func failure(_ error: AppError) -> String {
        switch error {
        case .refused("credentials", let why), .startup("credentials", let why):
            return "presignd explain: no storage credentials to recompute the signature with: set the two the "
                + "server signs with, PRESIGN_S3_ACCESS_KEY_ID and PRESIGN_S3_SECRET_ACCESS_KEY (or "
                + "PRESIGN_S3_SECRET_ACCESS_KEY_FILE), and its PRESIGN_S3_ENDPOINT, PRESIGN_S3_BUCKET and "
                + "PRESIGN_S3_REGION where they differ from the configuration. Beside scripts/run.sh (which sets "
                + "them for the server's process only), run `bash scripts/run.sh explain 'URL'` from the checkout "
                + "(with the same S3_PORT): it sets them for the local RGW.\n(credentials: \(why))"
        default:
            return "presignd explain: \(error)"
        }
    }
}
