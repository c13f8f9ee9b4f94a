import Crypto
import HTTPClient
import SigV4
import Synchronization

/// EC2 instance-profile credentials through IMDSv2.
///
/// 1. `PUT /latest/api/token` with `X-aws-ec2-metadata-token-ttl-seconds` gives a session token
///    (kept until a minute before its TTL ends);
/// 2. `GET /latest/meta-data/iam/security-credentials/` gives the role name;
/// 3. `GET /latest/meta-data/iam/security-credentials/<role>` gives JSON
///    `{Code: "Success", AccessKeyId, SecretAccessKey, Token, Expiration}`;
/// both GETs carry `X-aws-ec2-metadata-token`. A 401 means the token went stale: a new one is
/// fetched, once per attempt. `AWS_EC2_METADATA_DISABLED=true` turns the provider off. There is no
/// IMDSv1 fallback unless `options.allowV1Fallback`.
///
/// A metadata service that never answers (no connection, or a time-out, after the retries) before any
/// session token was had means "not on EC2": the provider is then not configured, as botocore's and
/// the AWS CLI's instance-metadata provider give no credentials instead of failing, so that a chain
/// with nothing else set up ends in "no credentials" rather than in a network error.
public final class InstanceMetadataCredentialsProvider: CredentialsProvider {
    /// `IMDSv2`.
    public let name = "IMDSv2"
    /// The environment, clock and transport.
    private let context: CredentialsContext
    /// The settings.
    public let options: InstanceMetadataOptions
    /// The transport with retries.
    private let fetcher: RemoteFetcher
    /// The session token and when to stop using it (epoch seconds); nil before the first.
    private let session = Mutex<(token: Secret, renewAt: Int64)?>(nil)

    /// The path of the token request.
    static let tokenPath = "/latest/api/token"
    /// The path listing the instance profile's role.
    static let rolePath = "/latest/meta-data/iam/security-credentials/"

    /// A provider reading its variables from `context`.
    public init(context: CredentialsContext, options: InstanceMetadataOptions = InstanceMetadataOptions()) {
        self.context = context
        self.options = options
        self.fetcher = RemoteFetcher(provider: "IMDSv2", options: options.remote, context: context)
    }

    /// The base URL this provider calls, by `options`, then the environment.
    public var endpoint: String {
        if let endpoint = options.endpoint { return endpoint }
        if let endpoint = context.variable("AWS_EC2_METADATA_SERVICE_ENDPOINT") { return endpoint }
        if context.variable("AWS_EC2_METADATA_SERVICE_ENDPOINT_MODE")?.lowercased() == "ipv6" {
            return "http://[fd00:ec2::254]"
        }
        return "http://169.254.169.254"
    }

    /// Credentials of the instance profile.
    public func fetch() throws(CredentialsError) -> ProvidedCredentials {
        if context.variable("AWS_EC2_METADATA_DISABLED")?.lowercased() == "true" {
            throw .notConfigured(provider: name, reason: "AWS_EC2_METADATA_DISABLED is true")
        }
        let url = try CredentialsURL.parse(endpoint, provider: name, name: "the IMDS endpoint")
        let role: String
        let credentials: Credentials
        do {
            (role, credentials) = try fetcher.withRetries { () throws(CredentialsError) -> (String, Credentials) in
                try attempt(url)
            }
        } catch {
            if case .transport(_, let failure) = error, session.withLock({ $0 }) == nil {
                switch failure {
                case .connection, .timeout:
                    throw .notConfigured(
                        provider: name,
                        reason: "no instance metadata service answered at \(url.address) (not on EC2?): \(failure)")
                default: break
                }
            }
            throw error
        }
        return ProvidedCredentials(
            credentials: credentials, provider: name, origins: ["IMDS \(url.address)", "role \(role)"])
    }

    /// One pass of the three requests, with one token renewal on a 401.
    private func attempt(_ url: CredentialsURL) throws(CredentialsError) -> (String, Credentials) {
        var token = try sessionToken(url, renew: false)
        var renewed = false
        func get(_ path: String) throws(CredentialsError) -> HTTPResponse {
            while true {
                var headers: [(name: String, value: String)] = [("Accept", "*/*")]
                if let token { headers.append(("X-aws-ec2-metadata-token", token.unredacted)) }
                let request = HTTPRequest(method: "GET", target: url.appending(path: path), headers: headers)
                let response = try fetcher.send(request, to: url.address)
                guard response.status == 401, !renewed else { return response }
                renewed = true
                token = try sessionToken(url, renew: true)
            }
        }
        let listing = try get(Self.rolePath)
        guard listing.status == 200 else {
            if listing.status == 404 {
                throw .service(
                    provider: name, status: 404, code: nil, message: "no IAM role is attached to this instance")
            }
            throw .service(provider: name, status: listing.status, code: nil, message: nil)
        }
        let role =
            String(decoding: listing.body, as: UTF8.self).split(whereSeparator: \.isNewline).first
            .map { String($0).trimmingSpaces() } ?? ""
        guard !role.isEmpty, role.utf8.count <= 128, role.utf8.allSatisfy(Self.isRoleNameByte) else {
            throw .malformedResponse(provider: name, reason: "the role listing does not name a role")
        }
        let answer = try get(Self.rolePath + role)
        guard answer.status == 200 else {
            let (code, message) = CredentialsJSON.error(answer.body)
            throw .service(
                provider: name, status: answer.status, code: code, message: CredentialFields.sanitizedMessage(message))
        }
        let credentials = try CredentialsJSON.credentials(
            answer.body, provider: name, now: context.now(), requireSuccessCode: true)
        return (role, credentials)
    }

    /// The cached session token, or a new one when `renew`, none is cached or it is about to end;
    /// nil means IMDSv1 (only with `allowV1Fallback`).
    private func sessionToken(_ url: CredentialsURL, renew: Bool) throws(CredentialsError) -> Secret? {
        let now = context.now()
        if !renew, let cached = session.withLock({ $0 }), now < cached.renewAt { return cached.token }
        let request = HTTPRequest(
            method: "PUT", target: url.appending(path: Self.tokenPath),
            headers: [("X-aws-ec2-metadata-token-ttl-seconds", String(options.tokenTTLSeconds))])
        let response: HTTPResponse
        do {
            response = try fetcher.send(request, to: url.address)
        } catch {
            if options.allowV1Fallback, case .transport(_, .timeout) = error { return nil }
            throw error
        }
        guard response.status == 200 else {
            if options.allowV1Fallback && [403, 404, 405].contains(response.status) { return nil }
            throw .service(
                provider: name, status: response.status, code: nil,
                message: "the session token request (PUT \(Self.tokenPath)) was refused")
        }
        var bytes = response.body
        while let last = bytes.last, last == 0x0a || last == 0x0d || last == 0x20 { bytes.removeLast() }
        guard !bytes.isEmpty, bytes.count <= 4096, bytes.allSatisfy(CredentialFields.isVisibleASCII) else {
            throw .malformedResponse(provider: name, reason: "the session token is not visible ASCII")
        }
        let token = Secret(bytes: bytes)
        let renewAt = now + Int64(max(1, options.tokenTTLSeconds - 60))
        session.withLock { $0 = (token, renewAt) }
        return token
    }

    /// `A-Z a-z 0-9 + = , . @ _ -`: IAM role names.
    private static func isRoleNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5a) || (byte >= 0x61 && byte <= 0x7a)
            || "+=,.@_-".utf8.contains(byte)
    }
}

extension String {
    /// `self` without leading and trailing spaces, tabs and CRs.
    fileprivate func trimmingSpaces() -> String {
        var text = self[...]
        while let first = text.first, first == " " || first == "\t" || first == "\r" { text = text.dropFirst() }
        while let last = text.last, last == " " || last == "\t" || last == "\r" { text = text.dropLast() }
        return String(text)
    }
}
