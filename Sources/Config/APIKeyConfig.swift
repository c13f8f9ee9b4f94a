/// One configured API key for server-to-server callers: an id and the SHA-256 of the key.
///
/// Only the digest is configured, never the key. Config file: `{"id": "backend-a", "sha256": "<64 hex>"}`
/// in `auth.apiKeys`, with `"scopes": ["admin"]` for an operator's key; environment: `id:sha256hex`
/// or `id:sha256hex:admin` entries separated by commas or newlines.
public struct APIKeyConfig: Sendable, Equatable {
    /// The caller id (1-64 of `A-Z a-z 0-9 _ -`), which becomes the request's principal.
    public var id: String
    /// SHA-256 of the key's UTF-8 bytes as 64 hexadecimal digits.
    public var sha256: String
    /// What else the key may do: `admin` (the operator routes, such as `POST /admin/explain`).
    public var scopes: [String]

    /// The scopes a key may have.
    public static let knownScopes = ["admin"]

    /// An API key entry.
    public init(id: String, sha256: String, scopes: [String] = []) {
        self.id = id
        self.sha256 = sha256
        self.scopes = scopes
    }

    /// True when the key has the `admin` scope.
    public var isAdmin: Bool { scopes.contains("admin") }
}
