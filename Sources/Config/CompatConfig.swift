import JSON

/// Compatibility routes: an app's own paths, bodies and envelopes mapped onto presignd's operations
/// (docs/operations.md, "Compatibility routes"). Off by default: no profile and no route.
public struct CompatConfig: Sendable, Equatable {
    /// The built-in profiles switched on by name (`clientP`, `clientB`; `compat.profiles`,
    /// `PRESIGN_COMPAT_PROFILES`).
    public var profiles: [String] = []
    /// The operator's own routes (`compat.routes` in the config file), after the profiles' routes.
    public var routes: [CompatRouteConfig] = []

    /// An empty section: nothing switched on.
    public init(profiles: [String] = [], routes: [CompatRouteConfig] = []) {
        self.profiles = profiles
        self.routes = routes
    }

    /// Every route to serve: the switched-on profiles' routes in profile order, then the operator's.
    public var activeRoutes: [CompatRouteConfig] {
        profiles.flatMap { CompatProfiles.routes(of: $0) ?? [] } + routes
    }
}

/// One compatibility route: a method and path template, the operation it runs, where its inputs are,
/// and the shapes of its answers.
public struct CompatRouteConfig: Sendable, Equatable {
    /// The operations a route can run.
    public enum Operation: String, Sendable, CaseIterable {
        /// Issue a URL for a new key of an upload type (the type and extension from the request).
        case issueByType
        /// Issue a URL for a key the client chose (a UUID), signing the content type it sends.
        case issueByKey
        /// Confirm an upload (optionally into a slot, replacing what it held).
        case confirm
        /// Confirm into a slot, replacing the slot's record: the same key again is an idempotent 200.
        case replace

        /// True for the two issuing operations.
        public var issues: Bool { self == .issueByType || self == .issueByKey }
    }

    /// How the key in the request is read.
    public enum KeyForm: String, Sendable, CaseIterable {
        /// A UUID in either case, stored lower-cased.
        case uuid
        /// An object key (a path such as `delete/profile/1/….jpeg`), under `keyPrefix` when given.
        case objectKey
    }

    /// One answer's shape: its status (nil: the operation's own) and its body template, a JSON value
    /// whose strings may hold `{placeholder}`s.
    public struct Shape: Sendable, Equatable {
        /// The HTTP status; nil keeps the operation's (200/201 on success, the error's own status).
        public var status: Int?
        /// The body template.
        public var body: JSONValue

        /// A shape from its parts.
        public init(status: Int? = nil, body: JSONValue) {
            self.status = status
            self.body = body
        }
    }

    /// A name for logs and problems (unique among the routes).
    public var name: String
    /// `GET` (issueByType only), `POST`, `PUT` or `PATCH`.
    public var method: String
    /// The path template, `{name}` segments being path parameters.
    public var path: String
    /// What the route does.
    public var operation: Operation
    /// The upload type: issueByType's fixed type (unless `typeField`), issueByKey's type (default
    /// `presign.defaultPostType`).
    public var type: String?
    /// issueByType: the request field naming the type (instead of a fixed `type`).
    public var typeField: String?
    /// issueByType: the request field with the file extension.
    public var extField: String = "ext"
    /// The request field holding the key (issueByKey, confirm, replace).
    public var keyField: String = "imageKey"
    /// How the key is read.
    public var keyForm: KeyForm = .uuid
    /// objectKey form: the prefix every key must start with (a 422 otherwise), e.g. `delete/`.
    public var keyPrefix: String?
    /// issueByKey: the request field with the content type to sign.
    public var contentTypeField: String = "contentType"
    /// Issuing: the URL lifetime, instead of the type's.
    public var expiresSeconds: Int?
    /// Confirm/replace: the lifetime of the signed read URL in `{url}`, instead of
    /// `presign.readUrlExpiresSeconds` (client B's server signs its read URLs for 10 minutes).
    public var readUrlExpiresSeconds: Int?
    /// Confirm/replace: the upload types the key's upload may be of (empty: any).
    public var types: [String] = []
    /// The path parameters kept as the record's metadata (nil: all of them).
    public var metadata: [String]?
    /// Confirm/replace: the slot the record takes, a template of path parameters (`quest:{questId}`);
    /// required for replace.
    public var slot: String?
    /// Confirm/replace: delete the record the slot held before, and its object, once the new record is durable.
    public var deletePrevious: Bool = true
    /// The success answer.
    public var success: Shape
    /// Error answers by presignd's error code (`IMAGE_NOT_UPLOADED`, `4220`, …) or `default`; an error
    /// with neither keeps presignd's own body.
    public var errors: [String: Shape] = [:]

    /// A route from its required parts; the rest take their defaults.
    public init(name: String, method: String, path: String, operation: Operation, success: Shape) {
        self.name = name
        self.method = method
        self.path = path
        self.operation = operation
        self.success = success
    }

    /// The names of the path template's `{parameters}`, in order.
    public var pathParameters: [String] {
        path.split(separator: "/", omittingEmptySubsequences: false).compactMap { segment in
            segment.hasPrefix("{") && segment.hasSuffix("}") && segment.count > 2
                ? String(segment.dropFirst().dropLast()) : nil
        }
    }

    /// A path template with every parameter's name blanked (`/a/{}/b`): two templates that differ
    /// only in their parameters' names match the same requests.
    public static func routeShape(_ path: String) -> String {
        path.split(separator: "/", omittingEmptySubsequences: false).map {
            $0.hasPrefix("{") && $0.hasSuffix("}") ? "{}" : String($0)
        }.joined(separator: "/")
    }

    /// The error codes an `errors` entry may name (presignd's `APIError` codes, and `default`).
    public static let errorCodes: Set<String> = [
        "default", "MALFORMED_QUERY", "MALFORMED_JSON", "UNSUPPORTED_MEDIA_TYPE", "4220", "INVALID_USER",
        "UNAUTHORIZED", "RATE_LIMITED", "SIGNING_FAILED", "KEY_ALREADY_RECORDED", "KEY_IN_USE", "ALREADY_RECORDED",
        "INTENT_NOT_FOUND", "FORBIDDEN", "IMAGE_NOT_UPLOADED", "IMAGE_TOO_LARGE", "CONTENT_TYPE_NOT_ALLOWED",
        "CONTENT_MISMATCH", "IMAGE_NOT_FOUND", "STORE_UNAVAILABLE", "STORAGE_TIMEOUT", "STORAGE_ERROR",
        "STORAGE_UNAVAILABLE", "CREDENTIALS_UNAVAILABLE",
        // The server's own errors on a route's path, before or around its handler.
        "BAD_REQUEST", "NOT_FOUND", "METHOD_NOT_ALLOWED", "REQUEST_TIMEOUT", "PAYLOAD_TOO_LARGE", "URI_TOO_LONG",
        "HEADERS_TOO_LARGE", "NOT_IMPLEMENTED", "VERSION_NOT_SUPPORTED", "SERVER_BUSY",
    ]
}
