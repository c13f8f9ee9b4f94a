import Auth
import Config
import HTTP1
import HTTPServer
import JSON
import Logging
import ObjectStore
import Records
import SigV4
import System

/// The compatibility routes (`compat.profiles`, `compat.routes`): an app's own method, path, body and
/// envelope mapped onto the native operations, which it calls rather than repeats: issuing through
/// `PresignService` (`checkedType`/`issueNew`, `validateBody`/`issueForKey`), confirming through
/// `ImagesService.confirmUpload`, replacing through the store's `fillSlot`.
///
/// Everything a request needs is prepared here, once: the answer templates compiled to byte runs
/// (`Envelope`), the field names, the slot template. With no route configured this service adds no
/// route, so the native routes are untouched; the clientP profile also gives client P's native issue
/// route (`GET /v1/storage/presigned-url`) its server's error shapes, its success answer unchanged.
final class CompatService: Sendable {
    /// One configured route, ready to serve.
    final class CompiledRoute: Sendable {
        /// Its configuration.
        let config: CompatRouteConfig
        /// Issue or confirm limits.
        let scope: Gate.Scope
        /// The success answer.
        let success: Envelope
        /// The error answers by error code, and the `default` one.
        let errors: ErrorShapes
        /// The slot template's pieces (confirm and replace).
        let slot: [CompatTemplate.Piece]?
        /// The path parameters kept as metadata.
        let metadataParameters: [String]
        /// issueByKey's body members.
        let bodyFields: PresignService.BodyFields
        /// issueByType's members.
        let typeFields: PresignService.TypeFields

        /// Compiles `config`.
        init(_ config: CompatRouteConfig) {
            self.config = config
            scope = config.operation.issues ? .issue : .confirm
            success = Envelope(config.success.body)
            errors = ErrorShapes(config.errors)
            slot = config.slot.flatMap(CompatTemplate.pieces)
            metadataParameters = config.metadata ?? config.pathParameters
            bodyFields = PresignService.BodyFields(
                contentType: config.contentTypeField, imageKey: config.keyField, type: nil, fixedType: config.type,
                extras: false)
            typeFields = PresignService.TypeFields(type: config.typeField ?? "type", ext: config.extField)
        }
    }

    /// What a request asks for, checked on the event loop.
    enum Work: Sendable {
        /// Sign for a client-chosen key (on a worker: its ownership is the store's to say).
        case issueByKey(PresignService.BodyRequest)
        /// Confirm, into `slot` when given.
        case confirm(ImagesService.Confirmation, slot: String?)
    }

    private let routesToServe: [CompiledRoute]
    private let presign: PresignService
    private let images: ImagesService
    private let store: any RecordStore
    private let committer: GroupCommitter
    private let storage: (any ObjectStorage)?
    private let gate: Gate
    private let env: AppEnvironment
    private let log: LogSink
    private let maxJsonBodyBytes: Int
    private let devUserHeader: String
    /// Client P's error shapes for its native issue route, when the clientP profile is on
    /// (`ClientPContract.issueErrors`).
    private let clientPIssueErrors: ErrorShapes?

    /// The service of `config.compat.activeRoutes` (validated by `ConfigValidator.validateCompat`).
    init(
        config: PresigndConfig, presign: PresignService, images: ImagesService, store: any RecordStore,
        committer: GroupCommitter, storage: (any ObjectStorage)?, gate: Gate, env: AppEnvironment, log: LogSink
    ) {
        routesToServe = config.compat.activeRoutes.map(CompiledRoute.init)
        self.presign = presign
        self.images = images
        self.store = store
        self.committer = committer
        self.storage = storage
        self.gate = gate
        self.env = env
        self.log = log
        maxJsonBodyBytes = config.server.maxJsonBodyBytes
        devUserHeader = config.auth.devUserHeader
        clientPIssueErrors = ClientPContract.issueErrors(config).map(ErrorShapes.init)
    }

    /// `native` followed by the configured routes (none when compatibility is off). A configured route
    /// on a native route's method and path would replace it: that stops the start instead.
    /// Each configured route renders the server's own errors on it (413, 405, 408, …) in its error
    /// shapes too; with the clientP profile on, client P's issue route answers its errors in P's shapes.
    func routes(besides native: [Route]) throws(AppError) -> [Route] {
        var routes = native
        if let shapes = clientPIssueErrors {
            routes = routes.map { route in
                guard route.method == .GET, route.template == ClientPContract.issuePath else { return route }
                return Route(
                    .GET, route.template, maxBodyBytes: route.maxBodyBytes,
                    errorRenderer: CompatService.errorRenderer(shapes), handler: clientPIssueHandler(shapes))
            }
        }
        for r in routesToServe {
            guard let method = HTTPMethod(name: r.config.method) else {
                throw .configuration("compat route \(r.config.name).method")
            }
            let shape = CompatRouteConfig.routeShape(r.config.path)
            if native.contains(where: { $0.method == method && CompatRouteConfig.routeShape($0.template) == shape }) {
                throw .startup(
                    "compat", "route \(r.config.name) (\(r.config.method) \(r.config.path)) is a native route")
            }
            let bodyLimit = method == .GET ? 0 : maxJsonBodyBytes
            routes.append(
                Route(
                    method, r.config.path, maxBodyBytes: bodyLimit,
                    errorRenderer: CompatService.errorRenderer(r.errors),
                    handler: handler(r)))
        }
        return routes
    }

    /// The renderer of the server's own errors in `shapes` (the code's shape, else `default`; with
    /// neither, presignd's body), nil when `shapes` has none.
    static func errorRenderer(_ shapes: ErrorShapes) -> ErrorRenderer? {
        guard !shapes.isEmpty else { return nil }
        return { status, code, message in
            guard let (shapedStatus, body) = shapes.render(status: status, code: code, message: message) else {
                return .json(status, ErrorBody.json(status: status, code: code, message: message).body)
            }
            return Response(status: shapedStatus, headers: APIError.jsonNoStoreHeaders, body: body)
        }
    }

    /// Client P's issue route: the native handler's work (`PresignService.issueForQuery`, the same
    /// success answer to the byte), its refusals and errors in client P's shapes.
    func clientPIssueHandler(_ shapes: ErrorShapes) -> Handler {
        { [self] request in
            switch gate.admit(request, .issue) {
            case .refused(let refusal): return .respond(refused(shapes, refusal, request))
            case .admitted(let caller):
                do throws(APIError) {
                    return .respond(mark(try presign.issueForQuery(request, caller: caller), caller))
                } catch {
                    return .respond(mark(errorAnswer(shapes, error, []), caller))
                }
            }
        }
    }

    // MARK: - The handler

    /// Admits the caller (`Gate.admit`, the admission every route has; its refusals are answered in
    /// the route's envelope), checks the request on the loop, then issues or confirms.
    func handler(_ r: CompiledRoute) -> Handler {
        { [self] request in
            let caller: Caller
            switch gate.admit(request, r.scope) {
            case .refused(let refusal): return .respond(refused(r.errors, refusal, request))
            case .admitted(let c): caller = c
            }
            let parameters = request.pathParameters
            do throws(APIError) {
                if r.config.operation == .issueByType {
                    return .respond(mark(issuedAnswer(r, try issueByType(r, request, caller), parameters), caller))
                }
                let work = try validate(r, request)
                return .blocking { [self] in
                    do {
                        switch work {
                        case .issueByKey(let body):
                            return mark(
                                issuedAnswer(r, try presign.issueForKey(body, caller: caller), parameters), caller)
                        case .confirm(let c, let slot):
                            let record = try confirm(r, c, slot: slot, caller: caller)
                            return mark(confirmedAnswer(r, record, parameters), caller)
                        }
                    } catch {
                        return mark(errorAnswer(r.errors, APIError(error), parameters), caller)
                    }
                }
            } catch {
                return .respond(mark(errorAnswer(r.errors, error, parameters), caller))
            }
        }
    }

    /// The response marked with the caller, for the access log.
    private func mark(_ response: Response, _ caller: Caller) -> Response {
        var r = response
        r.userId = caller.userId
        return r
    }

    // MARK: - Checking requests (event loop)

    /// issueByType: the type (fixed or from a member) and extension from the query (GET) or the JSON
    /// body, checked and signed on the loop like `GET /presigned-url`.
    func issueByType(_ r: CompiledRoute, _ request: Request, _ caller: Caller) throws(APIError) -> PresignService.Issued
    {
        try checkParameters(request)
        var typeName = r.config.type
        var ext: String?
        var chatroomId = request.parameter("chatroomId")
        if request.head.method == .GET {
            let (typeField, extField) = (r.config.typeField, r.config.extField)
            let wellFormed = request.forEachQueryItem { n, v in
                if n == typeField { typeName = v }
                if n == extField { ext = v }
                if n == "chatroomId", chatroomId == nil { chatroomId = v }
            }
            guard wellFormed else { throw .malformedQuery }
        } else {
            let object = try RequestValidation.jsonObject(request, maxDepth: 16, maxBytes: maxJsonBodyBytes)
            if let tf = r.config.typeField { typeName = object[tf]?.stringValue ?? "" }
            ext = object[r.config.extField]?.stringValue
            if chatroomId == nil { chatroomId = object["chatroomId"]?.stringValue }
        }
        let (type, lowerExt) = try presign.checkedType(typeName, ext: ext, chatroomId: chatroomId, fields: r.typeFields)
        return try presign.issueNew(
            type, ext: lowerExt, chatroomId: chatroomId, caller: caller, signer: presign.configured,
            expires: r.config.expiresSeconds, recordsIntent: true)
    }

    /// issueByKey and confirm/replace: the body's members where the route says they are.
    func validate(_ r: CompiledRoute, _ request: Request) throws(APIError) -> Work {
        try checkParameters(request)
        let object = try RequestValidation.jsonObject(request, maxDepth: 32, maxBytes: maxJsonBodyBytes)
        if r.config.operation == .issueByKey {
            var body = try presign.validateBody(object, fields: r.bodyFields)
            body.expiresSeconds = r.config.expiresSeconds
            return .issueByKey(body)
        }
        var errors = FieldErrors()
        let field = r.config.keyField
        let key: String?
        switch r.config.keyForm {
        case .uuid:
            key = RequestValidation.requiredString(
                object, field, invalid: "\(field) must be a UUID", errors: &errors,
                canonical: RequestValidation.canonicalUUID)
        case .objectKey:
            let prefix = r.config.keyPrefix
            key = RequestValidation.requiredString(
                object, field,
                invalid: prefix.map { "\(field) must be an object key under \($0)" }
                    ?? "\(field) must be an object key",
                errors: &errors,
                canonical: { s in (prefix.map { s.hasPrefix($0) } ?? true) && KeyTemplate.isSafeKey(s) ? s : nil })
        }
        guard errors.isEmpty, let key else { throw .validation(errors) }
        var metadata = JSONWriter(reservingCapacity: 64)
        metadata.beginObject()
        for name in r.metadataParameters {
            guard let value = request.parameter(name) else { continue }
            metadata.key(name)
            metadata.string(value)
        }
        metadata.endObject()
        let slot = r.slot.map { pieces in
            pieces.map { piece -> String in
                switch piece {
                case .text(let t): return t
                case .placeholder(let name):
                    let param = name.hasPrefix("param.") ? String(name.dropFirst("param.".count)) : name
                    return request.parameter(param) ?? ""
                }
            }.joined()
        }
        return .confirm(
            ImagesService.Confirmation(imageKey: key, metadataJSON: String(decoding: metadata.bytes, as: UTF8.self)),
            slot: slot)
    }

    /// Path parameters are kept as metadata and in slot names: at most 128 bytes, no control characters.
    func checkParameters(_ request: Request) throws(APIError) {
        var errors = FieldErrors()
        for p in request.pathParameters
        where p.value.utf8.count > 128
            || p.value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F })
        {
            errors.add(p.name, "\(p.name) must be at most 128 bytes without control characters")
        }
        if !errors.isEmpty { throw .validation(errors) }
    }

    // MARK: - Confirming (worker)

    /// Confirms the upload; into the slot when the route has one (replacing, and deleting, what the
    /// slot held), else through the group committer like `POST /images`.
    func confirm(_ r: CompiledRoute, _ c: ImagesService.Confirmation, slot: String?, caller: Caller) throws
        -> ImageRecord
    {
        let types = r.config.types
        let field = r.config.keyField
        func checkType(_ type: String) throws(APIError) {
            guard types.isEmpty || types.contains(type) else {
                throw .validation([field: "\(field) must be an upload of type " + types.joined(separator: " or ")])
            }
        }
        let check: (UploadIntent) throws -> Void = { intent in try checkType(intent.type) }
        guard let slot else {
            return try images.confirmUpload(c, caller: caller, check: check, existing: { $0 }) { record in
                let stored = try committer.insert(record).record
                guard stored.ownerId == caller.userId else { throw APIError.recordedByAnotherUser }
                return stored
            }
        }
        let deletePrevious = r.config.deletePrevious
        return try images.confirmUpload(
            c, caller: caller, check: check,
            existing: { record in
                try checkType(record.type)
                return try fill(record, slot: slot, deletePrevious: deletePrevious)
            },
            keep: { record in try fill(record, slot: slot, deletePrevious: deletePrevious) })
    }

    /// Makes `record` the slot's record (one durable transaction), then deletes the object of the record
    /// it replaced: never before the new record is durable. A failed delete leaves the key in the
    /// store's pending deletions (logged), never a record pointing at a deleted object.
    func fill(_ record: ImageRecord, slot: String, deletePrevious: Bool) throws -> ImageRecord {
        switch try store.fillSlot(record, slot: slot, deletePrevious: deletePrevious, nowMs: env.nowMillis()) {
        case .unchanged(let r): return r
        case .filled(let r, let previous, let objectToDelete):
            if let key = objectToDelete { deleteReplaced(key, imageKey: previous?.imageKey) }
            return r
        case .recordedByAnotherUser: throw APIError.recordedByAnotherUser
        case .inAnotherSlot: throw APIError.keyAlreadyRecorded
        }
    }

    /// Deletes a replaced record's object, then its pending-deletion row. Its intent goes first, so the
    /// replaced image key cannot be confirmed again (404 INTENT_NOT_FOUND) and record an object that
    /// is about to be deleted.
    func deleteReplaced(_ key: String, imageKey: String?) {
        guard let storage else { return }
        do {
            if let imageKey { try store.deleteIntents(imageKeys: [imageKey]) }
            try storage.delete(key: key)
            try store.finishObjectDeletions([key])
        } catch {
            log.warn("replaced object not deleted yet; it stays in the pending deletions", ["error": "\(error)"])
        }
    }

    // MARK: - Answers

    /// The success answer of an issue.
    func issuedAnswer(
        _ r: CompiledRoute, _ issued: PresignService.Issued, _ parameters: [(name: String, value: String)]
    )
        -> Response
    {
        var v = Envelope.Values()
        v.url = issued.presigned.url
        v.key = issued.key
        v.imageKey = issued.imageKey ?? issued.key
        v.expiresAtMs = issued.expiresAt
        v.headers = issued.presigned.headers
        v.parameters = parameters
        return Response(
            status: r.config.success.status ?? 200, headers: APIError.jsonNoStoreHeaders, body: r.success.render(v))
    }

    /// The success answer of a confirmation.
    func confirmedAnswer(_ r: CompiledRoute, _ record: ImageRecord, _ parameters: [(name: String, value: String)])
        -> Response
    {
        var v = Envelope.Values()
        v.url = images.readURL(for: record.objectKey, expires: r.config.readUrlExpiresSeconds)
        v.key = record.objectKey
        v.imageKey = record.imageKey
        v.id = record.id
        v.type = record.type
        v.contentType = record.contentType
        v.size = record.size
        v.createdAtMs = record.createdAtMs
        v.metadataJSON = record.metadataJSON
        v.parameters = parameters
        return Response(
            status: r.config.success.status ?? 200, headers: APIError.jsonNoStoreHeaders, body: r.success.render(v))
    }

    /// An error in the route's shape for its code (or its `default`), else the native answer; the
    /// native headers (`Retry-After`, `WWW-Authenticate`) are kept.
    func errorAnswer(_ shapes: ErrorShapes, _ error: APIError, _ parameters: [(name: String, value: String)])
        -> Response
    {
        var response = error.response
        var fields: FieldErrors?
        if case .validation(let f) = error { fields = f }
        guard
            let (status, body) = shapes.render(
                status: error.status, code: error.code, message: error.message, fieldErrors: fields,
                parameters: parameters)
        else { return response }
        response.status = status
        response.body = body
        return response
    }

    /// A refusal of the gate (401, 429, 400) in the route's envelope; its headers (`WWW-Authenticate`,
    /// `Retry-After`) are kept.
    func refused(_ shapes: ErrorShapes, _ refusal: Response, _ request: Request) -> Response {
        let error: APIError
        switch refusal.status {
        case 401: error = .unauthorized(AuthFailure(.missingCredentials))
        case 429: error = .rateLimited(retryAfterSeconds: 1)
        default: error = .invalidUser(header: devUserHeader)
        }
        guard
            let (status, body) = shapes.render(
                status: refusal.status, code: error.code, message: error.message, parameters: request.pathParameters)
        else { return refusal }
        var response = refusal
        response.status = status
        response.body = body
        return response
    }
}

/// A route's error answers, compiled: the shape of each error code, and the `default` one.
struct ErrorShapes: Sendable {
    /// The shapes by code (`IMAGE_NOT_UPLOADED`, `4220`, `PAYLOAD_TOO_LARGE`, …).
    let byCode: [String: (status: Int?, envelope: Envelope)]
    /// The `default` shape.
    let fallback: (status: Int?, envelope: Envelope)?

    /// Compiles a route's `errors`.
    init(_ errors: [String: CompatRouteConfig.Shape]) {
        var byCode: [String: (status: Int?, envelope: Envelope)] = [:]
        for (code, shape) in errors where code != "default" { byCode[code] = (shape.status, Envelope(shape.body)) }
        self.byCode = byCode
        fallback = errors["default"].map { ($0.status, Envelope($0.body)) }
    }

    /// True when no error has a shape (every error keeps presignd's body).
    var isEmpty: Bool { byCode.isEmpty && fallback == nil }

    /// The status and body of an error of `status` and `code` in its shape (or `default`'s), nil when
    /// it has neither.
    func render(
        status: Int, code: String, message: String, fieldErrors: FieldErrors? = nil,
        parameters: [(name: String, value: String)] = []
    ) -> (status: Int, body: [UInt8])? {
        guard let shape = byCode[code] ?? fallback else { return nil }
        var v = Envelope.Values()
        v.code = code
        v.message = message
        v.status = shape.status ?? status
        v.fieldErrors = fieldErrors
        v.parameters = parameters
        return (v.status ?? status, shape.envelope.render(v))
    }
}
