import HTTPServer
import JSON
import ObjectStore
import Uploads

/// Every refusal of the Uppy routes, typed: what is wrong with a request in Companion's terms, the
/// lifecycle's errors, and the house's (a body that is no JSON, the gate's refusals).
///
/// `response` is the routes' error presenter (`UppyPresenter`): Companion's shape,
/// `{"error": message, "message": message, "code": code}` with the status (400 for bad input, as
/// Companion answers it); `message` because `@uppy/aws-s3` shows only that member of a refusal.
/// `@uppy/aws-s3` parses every answer as JSON, so errors are JSON too; `code` is ours, stable, for
/// clients that act on it (a `NO_SUCH_UPLOAD` means: start again with a new key and upload ID). The
/// gate's own refusals (401, 429) keep the house's shape.
enum CompanionError: Error, Sendable, Equatable {
    /// The gate's refusal: answered in the house's shape.
    case refused(APIError)
    /// The body is not a JSON object (the house's code and status, in Companion's shape).
    case request(APIError)
    /// The lifecycle's refusal or failure.
    case upload(UploadError)
    /// The path's upload ID is not 1...1024 printable ASCII bytes.
    case malformedUploadId
    /// The query string is not valid percent-encoded UTF-8.
    case malformedQuery
    /// No `key` query parameter.
    case missingKey
    /// The part number is not 1...10000.
    case badPartNumber
    /// No `partNumbers` query parameter.
    case missingPartNumbers
    /// `partNumbers` is not a list of distinct part numbers, at most `maxBatch` of them.
    case badPartNumbers(maxBatch: Int)
    /// A completion's `parts` is not an array of `{PartNumber, ETag}` objects.
    case badParts
    /// A completion lists part `partNumber` twice.
    case partListedTwice(Int)
    /// No file name, or one that is not a string.
    case filenameMissing
    /// The content type is missing or not a string.
    case contentTypeMissing
    /// The metadata breaks a bound (the message says which).
    case badMetadata(String)
    /// A part's `md5` is not the base64 of 16 bytes (`reason` says how), or the batch form's list does not
    /// give one per part number: 422.
    case badPartMD5(String)
    /// `GET /s3/sts`: temporary credentials are not handed out here (every request is signed by the
    /// server).
    case stsNotServed

    /// 400 `BAD_REQUEST` refusals: their message.
    private var badRequestMessage: String? {
        switch self {
        case .malformedUploadId: return "s3: the upload ID is malformed"
        case .malformedQuery: return "s3: the query string is not valid percent-encoded UTF-8"
        case .missingKey: return "s3: the object key must be passed as a query parameter. For example: \"?key=abc.jpg\""
        case .badPartNumber: return "s3: the part number must be a number between 1 and 10000."
        case .missingPartNumbers:
            return
                "s3: the part numbers must be passed as a comma separated query parameter. For example: \"?partNumbers=4,6,7,21\""
        case .badPartNumbers(let maxBatch):
            return "s3: the part numbers must be distinct numbers between 1 and 10000, at most \(maxBatch)"
        case .badParts: return "s3: `parts` must be an array of {ETag, PartNumber} objects."
        case .partListedTwice(let n): return "s3: part \(n) is listed twice"
        case .filenameMissing: return "s3: the filename must be a non-empty string"
        case .contentTypeMissing: return "s3: content type must be a string"
        case .badMetadata(let message): return message
        case .request(.validation(let fields)):
            return fields.list.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        case .upload(.rejected(let problems)): return problems.first.map(CompanionError.message) ?? "s3: bad request"
        default: return nil
        }
    }

    /// The status, code and message, and the house's headers (`Retry-After`, `WWW-Authenticate`).
    var parts: (status: Int, code: String, message: String, headers: [(name: String, value: String)]) {
        // What the client declared of its object (size, digests) is 422 naming the member, as on the
        // other issue routes.
        if case .upload(.rejected(let problems)) = self, let first = problems.first, first.isDeclaredContent {
            return (422, "4220", CompanionError.message(first), [])
        }
        if case .badPartMD5(let reason) = self { return (422, "4220", "s3: md5: \(reason)", []) }
        if let message = badRequestMessage { return (400, "BAD_REQUEST", message, []) }
        switch self {
        case .stsNotServed:
            return (
                // A 4xx: Uppy shows the message of 4xx answers only.
                403, "STS_NOT_SERVED",
                "s3: this server does not hand out temporary credentials; leave @uppy/aws-s3's "
                    + "getTemporarySecurityCredentials off and sign through /params and /multipart", []
            )
        case .refused(let e), .request(let e): return (e.status, e.code, e.message, e.extraHeaders)
        case .upload(.storage(.multipart(.noSuchUpload))): return CompanionError.upload(.noSuchUpload).parts
        case .upload(.storage(.multipart(let refusal))):
            return (400, "S3_" + refusal.rawValue.uppercased(), "s3: storage refused: \(refusal.rawValue)", [])
        case .upload(let e):
            let house = APIError(e)
            return (house.status, house.code, house.message, house.extraHeaders)
        default: return (400, "BAD_REQUEST", "s3: bad request", [])
        }
    }

    /// The HTTP status.
    var status: Int { parts.status }

    /// The stable machine code.
    var code: String { parts.code }

    /// A rule of an upload type a browser upload breaks, as Companion-style text.
    static func message(_ problem: UploadProblem) -> String {
        switch problem {
        case .unknownType(let name, let known):
            let types = known.isEmpty ? "" : "; the types are " + known.joined(separator: ", ")
            return "s3: unknown upload type \(ProblemFields.quoted(name))" + types
        case .contentTypeNotAllowed(_, let type, let allowed):
            return "s3: content type must be one of " + allowed.joined(separator: ", ") + " for type \(type)"
        case .chatroomIdNotNumeric: return "s3: metadata.chatroomId must be a number"
        case .chatroomIdRequired(let type): return "s3: metadata.chatroomId is required for type \(type)"
        case .keyUnrenderable(let type): return "s3: the key for type \(type) cannot be built from these values"
        default:
            let (field, message) = ProblemFields.native.entry(problem)
            return "s3: \(field): \(message)"
        }
    }

    /// The JSON answer: the house's body for a refusal of the gate, else Companion's shape.
    var response: Response {
        if case .refused(let e) = self { return e.response }
        let (status, code, message, headers) = parts
        var w = JSONWriter(reservingCapacity: 64 + 2 * message.utf8.count)
        w.beginObject()
        w.key("error")
        w.string(message)
        w.key("message")
        w.string(message)
        w.key("code")
        w.string(code)
        w.endObject()
        return Response(
            status: status,
            headers: headers.isEmpty ? APIError.jsonNoStoreHeaders : APIError.jsonNoStoreHeaders + headers,
            body: w.bytes)
    }
}

/// The Uppy routes' error presenter: `CompanionError.response`.
struct UppyPresenter: ErrorPresenter {
    /// Companion's shape (the house's for the gate's refusals).
    func response(for failure: CompanionError) -> Response { failure.response }

    /// The gate's refusal, kept in the house's shape.
    func failure(refused: APIError) -> CompanionError { .refused(refused) }

    /// The lifecycle's failure, in Companion's shape.
    func failure(upload: UploadError) -> CompanionError { .upload(upload) }
}

extension Response {
    /// A 200 JSON answer of the Uppy routes, not cacheable.
    static func companion(_ body: [UInt8], status: Int = 200) -> Response {
        Response(status: status, headers: APIError.jsonNoStoreHeaders, body: body)
    }
}
