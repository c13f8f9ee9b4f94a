import Crypto
import HTTPClient
import SigV4

#if canImport(Glibc)
    import Glibc
#endif

/// Container credentials (ECS task roles, EKS Pod Identity): a GET of the agent's URL, answered
/// with JSON `{AccessKeyId, SecretAccessKey, Token, Expiration}`.
///
/// The URL is `http://169.254.170.2` + `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` (ECS), else
/// `AWS_CONTAINER_CREDENTIALS_FULL_URI`, which must be https, or name a loopback host (127.0.0.0/8,
/// `::1`, `localhost`) or an agent address (169.254.170.2, 169.254.170.23, `fd00:ec2::23`): a
/// token is never sent anywhere else over plain HTTP. With the full URI, the `Authorization` header
/// is the contents of `AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE` (read again on every fetch; EKS
/// rotates it), else `AWS_CONTAINER_AUTHORIZATION_TOKEN`; a CR or LF in it is refused. An answer
/// without `Token` gives credentials without a session token (ECS and EKS always send one; a local
/// credentials server for MinIO or Ceph users' keys need not), still with their `Expiration`.
public struct ContainerCredentialsProvider: CredentialsProvider {
    /// `container`.
    public let name = "container"
    /// The environment, files, clock and transport.
    private let context: CredentialsContext
    /// The settings.
    public let options: ContainerOptions
    /// The transport with retries.
    private let fetcher: RemoteFetcher

    /// A provider reading its variables from `context`.
    public init(context: CredentialsContext, options: ContainerOptions = ContainerOptions()) {
        self.context = context
        self.options = options
        self.fetcher = RemoteFetcher(provider: "container", options: options.remote, context: context)
    }

    /// Credentials from the agent.
    public func fetch() throws(CredentialsError) -> ProvidedCredentials {
        let url: CredentialsURL
        var origins: [String]
        var authorization: Secret?
        if let relative = context.variable("AWS_CONTAINER_CREDENTIALS_RELATIVE_URI") {
            guard relative.hasPrefix("/") else {
                throw .invalidConfiguration(
                    provider: name, reason: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI must start with /")
            }
            url = try parse(options.relativeURIBase + relative, variable: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI")
            origins = ["AWS_CONTAINER_CREDENTIALS_RELATIVE_URI"]
        } else if let full = context.variable("AWS_CONTAINER_CREDENTIALS_FULL_URI") {
            url = try parse(full, variable: "AWS_CONTAINER_CREDENTIALS_FULL_URI")
            guard Self.isAllowed(url.address) else {
                throw .invalidConfiguration(
                    provider: name,
                    reason: "AWS_CONTAINER_CREDENTIALS_FULL_URI host \(url.address.host) is not allowed over http "
                        + "(use https, a loopback address, 169.254.170.2, 169.254.170.23 or [fd00:ec2::23])")
            }
            origins = ["AWS_CONTAINER_CREDENTIALS_FULL_URI"]
            if let path = context.variable("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE") {
                var bytes = try context.read(path, for: name)
                if bytes.last == 0x0a { bytes.removeLast() }
                if bytes.last == 0x0d { bytes.removeLast() }
                authorization = try checkedToken(bytes, variable: "AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
                origins.append("AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE")
            } else if let token = context.variable("AWS_CONTAINER_AUTHORIZATION_TOKEN") {
                authorization = try checkedToken(Array(token.utf8), variable: "AWS_CONTAINER_AUTHORIZATION_TOKEN")
                origins.append("AWS_CONTAINER_AUTHORIZATION_TOKEN")
            }
        } else {
            throw .notConfigured(
                provider: name,
                reason: "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI and AWS_CONTAINER_CREDENTIALS_FULL_URI are not set")
        }
        var headers: [(name: String, value: String)] = [("Accept", "application/json")]
        if let authorization { headers.append(("Authorization", authorization.unredacted)) }
        let request = HTTPRequest(method: "GET", target: url.target, headers: headers)
        let credentials = try fetcher.withRetries { () throws(CredentialsError) -> Credentials in
            let response = try fetcher.send(request, to: url.address)
            guard response.status == 200 else {
                let (code, message) = CredentialsJSON.error(response.body)
                throw .service(
                    provider: name, status: response.status, code: code,
                    message: CredentialFields.sanitizedMessage(message, hiding: authorization?.unredacted))
            }
            return try CredentialsJSON.credentials(
                response.body, provider: name, now: context.now(), requireSuccessCode: false, requireToken: false)
        }
        return ProvidedCredentials(credentials: credentials, provider: name, origins: origins)
    }

    /// `text` as a URL, or `.invalidConfiguration` naming `variable`.
    private func parse(_ text: String, variable: String) throws(CredentialsError) -> CredentialsURL {
        try CredentialsURL.parse(text, provider: name, name: variable)
    }

    /// The token, refused when empty or holding CR, LF or another control character (it becomes a
    /// header value, so a line break would inject a header).
    private func checkedToken(_ bytes: [UInt8], variable: String) throws(CredentialsError) -> Secret {
        guard !bytes.isEmpty else { throw .invalidConfiguration(provider: name, reason: "\(variable) is empty") }
        guard !bytes.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7f }) else {
            throw .invalidConfiguration(provider: name, reason: "\(variable) holds a CR, LF or control character")
        }
        return Secret(bytes: bytes)
    }

    /// True when credentials may be fetched from `address`: over https anywhere; over http only
    /// from a loopback host or the ECS / EKS Pod Identity agent addresses. Literal addresses are
    /// compared by value (`inet_pton`), so `[0:0:0:0:0:0:0:1]` is `::1`; names other than
    /// `localhost` are refused rather than resolved.
    public static func isAllowed(_ address: ServerAddress) -> Bool {
        if address.usesTLS { return true }
        let host = address.host.lowercased()
        if host == "localhost" { return true }
        if host.hasPrefix("[") && host.hasSuffix("]") {
            var bytes = in6_addr()
            guard inet_pton(AF_INET6, String(host.dropFirst().dropLast()), &bytes) == 1 else { return false }
            let value = withUnsafeBytes(of: bytes) { Array($0) }
            let loopback = [UInt8](repeating: 0, count: 15) + [1]
            let podIdentity: [UInt8] = [0xfd, 0x00, 0x0e, 0xc2, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x23]
            return value == loopback || value == podIdentity
        }
        var bytes = in_addr()
        guard inet_pton(AF_INET, host, &bytes) == 1 else { return false }
        let value = withUnsafeBytes(of: bytes) { Array($0) }
        return value[0] == 127 || value == [169, 254, 170, 2] || value == [169, 254, 170, 23]
    }
}
