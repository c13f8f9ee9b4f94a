/// Why a request was not authenticated: a reason for the server's log, and what the client may see.
///
/// The client sees only the challenge (`WWW-Authenticate`) and the fixed body: never the reason.
/// No reason holds any part of a token, a key or a signature.
public struct AuthFailure: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong, for logs and metrics.
    public enum Reason: Sendable, Equatable, CustomStringConvertible {
        /// Neither `Authorization` nor `X-Api-Key` was sent.
        case missingCredentials
        /// `Authorization` uses a scheme other than `Bearer` (the client may not know it needs one).
        case unsupportedScheme
        /// Both `Authorization` and `X-Api-Key` were sent (RFC 6750, section 3.1: one method only).
        case conflictingCredentials
        /// `Authorization: Bearer` without a token, or with bytes a token cannot hold.
        case malformedAuthorization
        /// The credential is longer than the configured limit.
        case tokenTooLarge(bytes: Int, limit: Int)
        /// The token is not a JWS compact serialization this server reads; `detail` is a fixed text.
        case malformedToken(detail: String)
        /// The header's `alg` is not one of the configured algorithms; `alg` is shown only when short and plain.
        case algorithmNotAllowed(alg: String)
        /// The header has a parameter this server refuses (`crit`, an unknown `typ`); `detail` is a fixed text.
        case unsupportedHeader(detail: String)
        /// No configured key has the token's `kid` (and no single key without a `kid` can stand in).
        case unknownKeyID
        /// No key is configured for the token's algorithm.
        case noKeyForAlgorithm(JWTAlgorithm)
        /// The token has no `kid` and several keys could have signed it.
        case ambiguousKey(candidates: Int)
        /// The signature does not verify.
        case badSignature
        /// `exp` has passed (leeway included).
        case expired
        /// `nbf` is still ahead (leeway included).
        case notYetValid
        /// `iat` is in the future (leeway included).
        case issuedInTheFuture
        /// `iss` is absent or not the configured issuer.
        case wrongIssuer
        /// `aud` is absent or does not hold the configured audience.
        case wrongAudience
        /// A registered claim has the wrong type (`exp`, `nbf`, `iat`, `iss`, `aud`) or `exp` is missing.
        case invalidClaim(name: String)
        /// The user claim is missing, not a string, empty, or longer than 256 bytes.
        case invalidSubject
        /// The API key matches no configured key (or none is configured).
        case unknownAPIKey

        /// A stable snake_case name of the case for logs and alerts (`expired`, `bad_signature`); never
        /// holds any value from the request.
        public var code: String {
            switch self {
            case .missingCredentials: return "missing_credentials"
            case .unsupportedScheme: return "unsupported_scheme"
            case .conflictingCredentials: return "conflicting_credentials"
            case .malformedAuthorization: return "malformed_authorization"
            case .tokenTooLarge: return "token_too_large"
            case .malformedToken: return "malformed_token"
            case .algorithmNotAllowed: return "algorithm_not_allowed"
            case .unsupportedHeader: return "unsupported_header"
            case .unknownKeyID: return "unknown_kid"
            case .noKeyForAlgorithm: return "no_key_for_algorithm"
            case .ambiguousKey: return "ambiguous_key"
            case .badSignature: return "bad_signature"
            case .expired: return "expired"
            case .notYetValid: return "not_yet_valid"
            case .issuedInTheFuture: return "issued_in_the_future"
            case .wrongIssuer: return "wrong_issuer"
            case .wrongAudience: return "wrong_audience"
            case .invalidClaim: return "invalid_claim"
            case .invalidSubject: return "invalid_subject"
            case .unknownAPIKey: return "unknown_api_key"
            }
        }

        /// A short fixed text for logs.
        public var description: String {
            switch self {
            case .missingCredentials: return "no credentials"
            case .unsupportedScheme: return "Authorization scheme is not Bearer"
            case .conflictingCredentials: return "both Authorization and X-Api-Key sent"
            case .malformedAuthorization: return "malformed Authorization header"
            case .tokenTooLarge(let bytes, let limit): return "credential of \(bytes) bytes exceeds \(limit)"
            case .malformedToken(let detail): return "malformed token: \(detail)"
            case .algorithmNotAllowed(let alg): return "algorithm \(alg) not allowed"
            case .unsupportedHeader(let detail): return "unsupported token header: \(detail)"
            case .unknownKeyID: return "unknown kid"
            case .noKeyForAlgorithm(let algorithm): return "no key configured for \(algorithm)"
            case .ambiguousKey(let candidates): return "token without kid and \(candidates) candidate keys"
            case .badSignature: return "bad signature"
            case .expired: return "token expired"
            case .notYetValid: return "token not yet valid"
            case .issuedInTheFuture: return "token issued in the future"
            case .wrongIssuer: return "wrong issuer"
            case .wrongAudience: return "wrong audience"
            case .invalidClaim(let name): return "invalid or missing claim \(name)"
            case .invalidSubject: return "invalid user claim"
            case .unknownAPIKey: return "unknown API key"
            }
        }
    }

    /// The `error` code of RFC 6750, section 3.1, that a challenge may carry.
    public enum BearerError: String, Sendable, Equatable {
        /// The request is malformed (two credentials, an empty token).
        case invalidRequest = "invalid_request"
        /// The credential is malformed, expired, forged, or for someone else.
        case invalidToken = "invalid_token"
    }

    /// Why authentication failed.
    public let reason: Reason

    /// A failure for `reason`.
    public init(_ reason: Reason) {
        self.reason = reason
    }

    /// The error code for the challenge: none when no bearer credential was offered (RFC 6750,
    /// section 3.1: "the resource server SHOULD NOT include an error code").
    public var bearerError: BearerError? {
        switch reason {
        case .missingCredentials, .unsupportedScheme: return nil
        case .conflictingCredentials, .malformedAuthorization: return .invalidRequest
        default: return .invalidToken
        }
    }

    /// The value of the `WWW-Authenticate` header of the 401 response (RFC 6750, section 3):
    /// `Bearer realm="presignd"` when no bearer credential was offered, else
    /// `Bearer error="invalid_token"` or `Bearer error="invalid_request"`.
    public var challenge: String {
        guard let bearerError else { return #"Bearer realm="\#(Self.realm)""# }
        return #"Bearer error="\#(bearerError.rawValue)""#
    }

    /// The realm named in challenges.
    public static let realm = "presignd"

    /// The HTTP status of every authentication failure.
    public static let status = 401

    /// The JSON body of every authentication failure: the same for all reasons, so it helps no attacker.
    public static let responseBody = #"{"code":"UNAUTHORIZED","message":"invalid or missing credentials"}"#

    /// The reason, for logs.
    public var description: String { reason.description }
}
