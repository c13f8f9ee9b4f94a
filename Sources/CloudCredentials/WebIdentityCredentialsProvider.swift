import Crypto
import HTTPClient
import SigV4

/// Web identity (EKS IAM roles for service accounts): trades the projected token in
/// `AWS_WEB_IDENTITY_TOKEN_FILE` for temporary credentials of `AWS_ROLE_ARN` with STS
/// `AssumeRoleWithWebIdentity`.
///
/// The call is unsigned (the token is the proof): a POST of the form
/// `Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=…&RoleSessionName=…&WebIdentityToken=…`
/// (`&DurationSeconds=…` when set), every value URI-encoded. The token file is read again on
/// every fetch, because the kubelet replaces it before it expires. The session name is
/// `AWS_ROLE_SESSION_NAME`, else `presignd-` and 16 random hex digits chosen once per provider.
public final class WebIdentityCredentialsProvider: CredentialsProvider {
    /// `web identity`.
    public let name = "web identity"
    /// The environment, files, clock and transport.
    private let context: CredentialsContext
    /// The settings.
    public let options: WebIdentityOptions
    /// The transport with retries.
    private let fetcher: RemoteFetcher
    /// The session name used when `AWS_ROLE_SESSION_NAME` is unset.
    private let generatedSessionName: String

    /// A provider reading its variables from `context`.
    public init(context: CredentialsContext, options: WebIdentityOptions = WebIdentityOptions()) {
        self.context = context
        self.options = options
        self.fetcher = RemoteFetcher(provider: "web identity", options: options.remote, context: context)
        var name = "presignd-"
        let digits = Array("0123456789abcdef".utf8)
        for _ in 0..<16 { name.append(Character(Unicode.Scalar(digits[context.randomValue(upTo: 15)]))) }
        self.generatedSessionName = name
    }

    /// The STS endpoint this provider calls, by `options`, then the environment.
    public var stsEndpoint: String {
        if let endpoint = options.stsEndpoint { return endpoint }
        if let endpoint = context.variable("AWS_ENDPOINT_URL_STS") { return endpoint }
        guard let region = options.region ?? context.variable("AWS_REGION") ?? context.variable("AWS_DEFAULT_REGION")
        else { return "https://sts.amazonaws.com" }
        return "https://sts.\(region).amazonaws.com" + (region.hasPrefix("cn-") ? ".cn" : "")
    }

    /// Credentials from STS for the token in the file.
    public func fetch() throws(CredentialsError) -> ProvidedCredentials {
        let tokenFile = context.variable("AWS_WEB_IDENTITY_TOKEN_FILE")
        let roleArn = context.variable("AWS_ROLE_ARN")
        guard tokenFile != nil || roleArn != nil else {
            throw .notConfigured(provider: name, reason: "AWS_WEB_IDENTITY_TOKEN_FILE and AWS_ROLE_ARN are not set")
        }
        guard let tokenFile, let roleArn else {
            let missing = tokenFile == nil ? "AWS_WEB_IDENTITY_TOKEN_FILE" : "AWS_ROLE_ARN"
            throw .invalidConfiguration(provider: name, reason: "\(missing) is not set (both are needed)")
        }
        guard roleArn.hasPrefix("arn:"), roleArn.utf8.count <= 2048,
            roleArn.utf8.allSatisfy(CredentialFields.isVisibleASCII)
        else { throw .invalidConfiguration(provider: name, reason: "AWS_ROLE_ARN is not an ARN") }
        var origins = ["AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"]
        let sessionName: String
        if let given = context.variable("AWS_ROLE_SESSION_NAME") {
            guard Self.isSessionName(given) else {
                throw .invalidConfiguration(
                    provider: name, reason: "AWS_ROLE_SESSION_NAME must be 2 to 64 of A-Z a-z 0-9 + = , . @ _ -")
            }
            sessionName = given
            origins.append("AWS_ROLE_SESSION_NAME")
        } else {
            sessionName = generatedSessionName
        }
        let endpointText = stsEndpoint
        let url = try CredentialsURL.parse(endpointText, provider: name, name: "the STS endpoint")
        origins.append("STS \(url.address)")
        let token = try readToken(tokenFile)
        let body = Self.formBody(
            roleArn: roleArn, sessionName: sessionName, token: token, durationSeconds: options.durationSeconds)
        let request = HTTPRequest(
            method: "POST", target: url.target,
            headers: [
                ("Content-Type", "application/x-www-form-urlencoded; charset=utf-8"), ("Accept", "text/xml"),
            ], body: body)
        let credentials = try fetcher.withRetries { () throws(CredentialsError) -> Credentials in
            let response = try fetcher.send(request, to: url.address)
            guard response.status == 200 else {
                let (code, message) = STSResponse.error(response.body)
                throw .service(
                    provider: name, status: response.status, code: code,
                    message: CredentialFields.sanitizedMessage(message, hiding: token.unredacted))
            }
            return try STSResponse.credentials(response.body, provider: name, now: context.now())
        }
        return ProvidedCredentials(credentials: credentials, provider: name, origins: origins)
    }

    /// The token in `path`, trailing white space removed; it must be visible ASCII (a JWT).
    private func readToken(_ path: String) throws(CredentialsError) -> Secret {
        var bytes = try context.read(path, for: name)
        while let last = bytes.last, last == 0x0a || last == 0x0d || last == 0x20 || last == 0x09 { bytes.removeLast() }
        guard !bytes.isEmpty else {
            throw .invalidConfiguration(provider: name, reason: "the token file \(path) is empty")
        }
        guard bytes.allSatisfy(CredentialFields.isVisibleASCII) else {
            throw .invalidConfiguration(provider: name, reason: "the token file \(path) does not hold a token")
        }
        return Secret(bytes: bytes)
    }

    /// The form `Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=…&RoleSessionName=…&
    /// WebIdentityToken=…[&DurationSeconds=…]`, values URI-encoded (RFC 3986 unreserved kept).
    static func formBody(roleArn: String, sessionName: String, token: Secret, durationSeconds: Int?) -> [UInt8] {
        var form =
            "Action=AssumeRoleWithWebIdentity&Version=2011-06-15&RoleArn=\(URIEncoding.encode(roleArn))"
            + "&RoleSessionName=\(URIEncoding.encode(sessionName))"
            + "&WebIdentityToken=\(URIEncoding.encode(token.unredacted))"
        if let durationSeconds { form += "&DurationSeconds=\(durationSeconds)" }
        return Array(form.utf8)
    }

    /// 2 to 64 of `A-Z a-z 0-9 + = , . @ _ -` (STS's `RoleSessionName` pattern).
    static func isSessionName(_ text: String) -> Bool {
        (2...64).contains(text.utf8.count)
            && text.utf8.allSatisfy { byte in
                (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
                    || "+=,.@_-".utf8.contains(byte)
            }
    }
}
