import Auth
import Config
import Explain
import HTTPServer
import JSON
import Logging
import ObjectStore
import SigV4
import System
import Uploads

/// `POST /admin/explain` (when `explain.enabled`): why storage refused a presigned URL, for callers
/// with an API key that has the `admin` scope.
///
/// A thin shell: it admits the caller (the gate, then the admin key), reads the JSON body into an
/// `ExplainInput` (storage's error XML through `S3XML`), and answers `SignatureExplainer`'s findings
/// as JSON. The explanation runs on the worker pool: it may sign a few thousand readings.
public struct ExplainService: Sendable {
    /// The route's path.
    static let path = "/admin/explain"

    let explainer: SignatureExplainer
    let gate: Gate
    let admins: AdminKeys
    let nowSeconds: @Sendable () -> Int64
    let maxJsonBodyBytes: Int
    /// Asks storage to take the server's own credentials (a signed HEAD of the bucket).
    let checkCredentials: @Sendable () -> CredentialsCheck

    /// A service explaining URLs of `signer` (a closure, so rotating credentials plug in), checking the
    /// server's credentials against `storage` when a URL is what the server signs and still refused.
    init(
        config: PresigndConfig, signer: @escaping @Sendable () -> Presigner, storage: any ObjectStorage, gate: Gate,
        env: AppEnvironment
    ) {
        explainer = ExplainService.explainer(config: config, signer: signer)
        checkCredentials = { ExplainService.credentialsCheck(storage) }
        self.gate = gate
        admins = AdminKeys(config.auth.apiKeys, maxTokenBytes: config.auth.maxTokenBytes)
        nowSeconds = { env.nowMillis() / 1000 }
        maxJsonBodyBytes = config.server.maxJsonBodyBytes
    }

    /// What storage says to the server's own credentials: a signed HEAD of the bucket.
    static func credentialsCheck(_ storage: any ObjectStorage) -> CredentialsCheck {
        do throws(ObjectStoreError) {
            let probe = try storage.probeBucket()
            return probe.status == 200 ? .accepted : .refused(status: probe.status, code: probe.errorCode)
        } catch {
            return .unavailable(error.description)
        }
    }

    /// What `presignd explain` needs of the application: the explainer with the credentials the chain
    /// gives now, and the check of those credentials against storage.
    public struct Tools: Sendable {
        /// The explainer for the configured bucket, signing as the server would.
        public let explainer: SignatureExplainer
        /// Asks storage to take the server's credentials.
        public let checkCredentials: @Sendable () -> CredentialsCheck
    }

    /// The tools for `config`: the credential chain asked once at `nowSeconds` (its log lines go to
    /// standard error), the signers and a storage client as the server makes them.
    public static func tools(config: PresigndConfig, environment: [String: String], nowSeconds: Int64)
        throws(AppError) -> Tools
    {
        let env = AppEnvironment(nowMillis: { nowSeconds * 1000 }, newUUID: { "" }, variables: environment)
        let resolved = try Application.resolveCredentials(config, env: env, log: LogSink())
        let signers = try Application.makeSigners(config.s3, credentials: resolved.provided.credentials)
        let storage = Application.makeStorage(config.s3, signers: signers, env: env)
        let signer = signers.configured.current
        return Tools(
            explainer: explainer(config: config, signer: { signer }),
            checkCredentials: { ExplainService.credentialsCheck(storage) })
    }

    /// The explainer for the configured bucket, with the configured content types and lifetimes as
    /// the candidates it tries.
    static func explainer(config: PresigndConfig, signer: @escaping @Sendable () -> Presigner) -> SignatureExplainer {
        SignatureExplainer(
            signer: signer, bucket: config.s3.bucket, contentTypes: config.types.flatMap(\.contentTypes),
            expiries: [config.presign.expiresSeconds] + config.types.map(\.expiresSeconds),
            maxSkewSeconds: Int64(config.s3.maxClockSkewSeconds))
    }

    /// The route.
    func routes() -> [Route] {
        let handler = gate.route(
            .confirm,
            validate: { [self] (_, request) throws(APIError) in
                try admins.admit(request, now: nowSeconds())
                return try ExplainService.input(request, maxBytes: maxJsonBodyBytes)
            },
            perform: { [self] _, input in
                let explanation = explainer.explain(input, now: nowSeconds(), checkCredentials: checkCredentials)
                return Response(
                    status: 200, headers: APIError.jsonNoStoreHeaders, body: explanation.jsonValue.serialized())
            })
        return [Route(.POST, ExplainService.path, maxBodyBytes: maxJsonBodyBytes, handler: handler)]
    }

    /// The request body as an explainer input: `url` (required), `method`, `headers` (an object of
    /// names and values, or an array of `"Name: value"` lines), `errorXml`, `canonicalRequest`,
    /// `stringToSign`, `storageDate` (storage's `Date` header).
    static func input(_ request: Request, maxBytes: Int) throws(APIError) -> ExplainInput {
        let object = try RequestValidation.jsonObject(request, maxDepth: 8, maxBytes: maxBytes)
        var errors = FieldErrors()
        for member in object
        where !["url", "method", "headers", "errorXml", "canonicalRequest", "stringToSign", "storageDate"].contains(
            member.key)
        {
            errors.add(member.key, "unknown member")
        }
        let url = RequestValidation.requiredString(
            object, "url", invalid: "url must be the URL the client requested", errors: &errors
        ) { $0.isEmpty ? nil : $0 }
        func optionalString(_ name: String) -> String? {
            guard let value = object[name], !value.isNull else { return nil }
            guard let text = value.stringValue else {
                errors.add(name, "\(name) must be a string")
                return nil
            }
            return text
        }
        let method = optionalString("method")
        if let method,
            method.isEmpty || !method.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5a || $0 >= 0x61 && $0 <= 0x7a })
        {
            errors.add("method", "method must be an HTTP method such as PUT")
        }
        var headers: [(name: String, value: String)]?
        if let value = object["headers"], !value.isNull {
            if let members = value.objectValue {
                headers = []
                for member in members {
                    guard let text = member.value.stringValue else {
                        errors.add("headers", "each header value must be a string")
                        break
                    }
                    headers?.append((member.key, text))
                }
            } else if let lines = value.arrayValue {
                headers = []
                for line in lines {
                    guard let text = line.stringValue, let header = ExplainService.header(line: text) else {
                        errors.add("headers", #"each header line must be "Name: value""#)
                        break
                    }
                    headers?.append(header)
                }
            } else {
                errors.add("headers", #"headers must be an object or an array of "Name: value" lines"#)
            }
        }
        var storage = optionalString("errorXml").map { ExplainService.storageReport(xml: Array($0.utf8)) }
        if let canonical = optionalString("canonicalRequest") {
            storage = storage ?? StorageErrorReport()
            storage?.canonicalRequest = canonical
        }
        if let stringToSign = optionalString("stringToSign") {
            storage = storage ?? StorageErrorReport()
            storage?.stringToSign = stringToSign
        }
        if let date = optionalString("storageDate") {
            if let seconds = IMFFixdate.epochSeconds(date) {
                storage = storage ?? StorageErrorReport()
                storage?.storageTime = seconds
            } else {
                errors.add("storageDate", "storageDate must be an HTTP date (storage's Date header)")
            }
        }
        guard errors.isEmpty, let url else { throw .validation(errors) }
        return ExplainInput(url: url, method: method?.uppercased(), headers: headers, storage: storage)
    }

    /// `Name: value` split at the first colon, both sides trimmed; nil without a colon or a name.
    public static func header(line: String) -> (name: String, value: String)? {
        guard let colon = line.firstIndex(of: ":") else { return nil }
        let name = line[..<colon].trimmingSpaces()
        guard !name.isEmpty else { return nil }
        return (String(name), String(line[line.index(after: colon)...].trimmingSpaces()))
    }

    /// The parts of storage's error XML the explainer reads (AWS S3 sends `CanonicalRequest` and
    /// `StringToSign`; Ceph RGW only `Code`).
    public static func storageReport(xml: [UInt8]) -> StorageErrorReport {
        StorageErrorReport(
            code: S3XML.firstElementText("Code", in: xml), message: S3XML.firstElementText("Message", in: xml),
            canonicalRequest: S3XML.firstElementText("CanonicalRequest", in: xml),
            stringToSign: S3XML.firstElementText("StringToSign", in: xml),
            accessKeyId: S3XML.firstElementText("AWSAccessKeyId", in: xml),
            storageTime: S3XML.firstElementText("ServerTime", in: xml).flatMap(ISO8601Timestamp.epochSeconds),
            signatureProvided: S3XML.firstElementText("SignatureProvided", in: xml))
    }
}

/// The API keys with the `admin` scope, checked after the gate admitted the caller.
struct AdminKeys: Sendable {
    /// Every configured API key (an unknown key is 401, a known one without the scope 403).
    let authenticator: Authenticator
    /// The ids of the keys with the `admin` scope.
    let adminIds: Set<String>

    init(_ keys: [APIKeyConfig], maxTokenBytes: Int) {
        authenticator = Authenticator(
            configuration: AuthSettings(
                maxTokenBytes: maxTokenBytes, apiKeys: keys.compactMap { APIKey(id: $0.id, sha256Hex: $0.sha256) }),
            keys: KeySet.empty)
        adminIds = Set(keys.filter(\.isAdmin).map(\.id))
    }

    /// Returns when `request` carries an admin key (`X-Api-Key`, or `Authorization: Bearer <key>`);
    /// 401 for none or an unknown key, 403 for a user's token or a key without the scope.
    func admit(_ request: Request, now: Int64) throws(APIError) {
        let apiKey = request.header(Authenticator.apiKeyHeader)
        let authorization = request.header("Authorization")
        if apiKey == nil, let authorization, authorization.contains(".") {
            throw .adminRequired  // a user's JWT: users are never admins
        }
        switch authenticator.authenticate(authorization: authorization, apiKey: apiKey, now: now) {
        case .success(let principal):
            guard principal.kind == .apiKey, adminIds.contains(principal.subject) else { throw .adminRequired }
        case .failure(let failure):
            throw .unauthorized(failure)
        }
    }
}
