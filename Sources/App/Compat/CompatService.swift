import Config
import HTTP1
import HTTPServer
import JSON
import Logging
import Records
import Uploads

/// The compatibility routes (`compat.profiles`, `compat.routes`): an app's own method, path, body and
/// envelope mapped onto the lifecycle's operations, which it calls rather than repeats: issuing
/// through `Uploads.Issuer` (by type, or for a client-chosen key), confirming and replacing through
/// `Uploads.Confirmer` (into a slot when the route has one). Every failure is answered by the route's
/// `CompatPresenter` from its typed error. An issue is answered only once its URL's intent is stored
/// (`Uploads.Pending`), and a URL whose intent is not stored in time is the route's 503 in its envelope.
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
        /// Its error presenter (the route's shapes and member names).
        let presenter: CompatPresenter
        /// The slot template's pieces (confirm and replace).
        let slot: [CompatTemplate.Piece]?
        /// The path parameters kept as metadata.
        let metadataParameters: [String]

        /// Compiles `config`.
        init(_ config: CompatRouteConfig) {
            self.config = config
            scope = config.operation.issues ? .issue : .confirm
            success = Envelope(config.success.body)
            let keyed = config.operation == .issueByKey
            presenter = CompatPresenter(
                shapes: ErrorShapes(config.errors),
                fields: ProblemFields(
                    type: keyed ? "type" : config.typeField ?? "type", ext: config.extField,
                    chatroomId: keyed ? nil : "chatroomId", contentType: config.contentTypeField, key: config.keyField))
            slot = config.slot.flatMap(CompatTemplate.pieces)
            metadataParameters = config.metadata ?? config.pathParameters
        }
    }

    /// What a request asks for, checked on the event loop.
    enum Work: Sendable {
        /// Sign for a client-chosen key (on a worker: its ownership is the store's to say).
        case issueByKey(KeyedUpload)
        /// Confirm, into `slot` when given.
        case confirm(Confirmation, slot: Slot?)
    }

    private let routesToServe: [CompiledRoute]
    private let issuer: Issuer
    private let confirmer: Confirmer
    private let records: UploadRecords
    private let gate: Gate
    private let maxJsonBodyBytes: Int
    /// The type of an issue for a client-chosen key whose route names none.
    private let defaultPostType: String
    /// Client P's presenter for its native issue route, when the clientP profile is on
    /// (`ClientPContract.issueErrors`).
    private let clientPIssue: CompatPresenter?
    /// Client P's native issue route, to serve with its errors in P's shapes.
    private let clientPIssueRoute: @Sendable (Request, Caller) throws(APIError) -> Pending<Response>

    /// The service of `config.compat.activeRoutes` (validated by `ConfigValidator.validateCompat`) over
    /// `uploads`; `clientPIssue` answers client P's native issue route (`PresignService.issueForQuery`).
    init(
        config: PresigndConfig, uploads: UploadLifecycle, gate: Gate,
        clientPIssue: @escaping @Sendable (Request, Caller) throws(APIError) -> Pending<Response>
    ) {
        routesToServe = config.compat.activeRoutes.map(CompiledRoute.init)
        issuer = uploads.issuer
        confirmer = uploads.confirmer
        records = uploads.records
        self.gate = gate
        maxJsonBodyBytes = config.server.maxJsonBodyBytes
        defaultPostType = config.presign.defaultPostType
        self.clientPIssue = ClientPContract.issueErrors(config).map {
            CompatPresenter(shapes: ErrorShapes($0), fields: .native)
        }
        clientPIssueRoute = clientPIssue
    }

    /// `native` followed by the configured routes (none when compatibility is off). A configured route
    /// on a native route's method and path would replace it: that stops the start instead.
    /// Each configured route renders the server's own errors on it (413, 405, 408, …) in its error
    /// shapes too; with the clientP profile on, client P's issue route answers its errors in P's shapes.
    func routes(besides native: [Route]) throws(AppError) -> [Route] {
        var routes = native
        if let presenter = clientPIssue {
            routes = routes.map { route in
                guard route.method == .GET, route.template == ClientPContract.issuePath else { return route }
                return Route(
                    .GET, route.template, maxBodyBytes: route.maxBodyBytes,
                    errorRenderer: CompatService.errorRenderer(presenter.shapes),
                    handler: clientPIssueHandler(presenter))
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
                    errorRenderer: CompatService.errorRenderer(r.presenter.shapes),
                    // Issuing by key reads the store (who holds the key) and signs: brief work.
                    brief: r.config.operation == .issueByKey, handler: handler(r)))
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
    func clientPIssueHandler(_ presenter: CompatPresenter) -> Handler {
        { [self] request in
            switch gate.admit(request, .issue) {
            case .refused(let refusal, let userId):
                var response = presenter.response(for: refusal, parameters: request.pathParameters)
                response.userId = userId
                return .respond(response)
            case .admitted(let caller):
                do throws(APIError) {
                    return try clientPIssueRoute(request, caller).map { mark($0, caller) }.result { [self] error in
                        mark(presenter.response(for: error, parameters: []), caller)
                    }
                } catch {
                    return .respond(mark(presenter.response(for: error, parameters: []), caller))
                }
            }
        }
    }

    // MARK: - The handler

    /// Admits the caller (`Gate.admit`, the admission every route has; its refusals are answered in
    /// the route's envelope), checks the request on the loop, then issues or confirms.
    func handler(_ r: CompiledRoute) -> Handler {
        { [self] request in
            let parameters = request.pathParameters
            let caller: Caller
            switch gate.admit(request, r.scope) {
            case .refused(let refusal, let userId):
                var response = r.presenter.response(for: refusal, parameters: parameters)
                response.userId = userId
                return .respond(response)
            case .admitted(let c): caller = c
            }
            // A lifecycle failure (an intent not stored in time too), in the route's envelope.
            let failed: @Sendable (UploadError) -> Response = { [self] error in
                mark(r.presenter.response(for: error, parameters: parameters), caller)
            }
            do throws(APIError) {
                if r.config.operation == .issueByType {
                    let issued = try issueByType(r, request, caller)
                    return issued.map { mark(issuedAnswer(r, $0, parameters), caller) }.result(refusal: failed)
                }
                switch try validate(r, request) {
                case .issueByKey(let upload):
                    // On a worker (the store says who holds the key), which is free again while the
                    // intent commits.
                    return .blockingDeferred { [self] responder in
                        do throws(UploadError) {
                            try issuer.issue(upload, owner: caller.userId)
                                .map { mark(issuedAnswer(r, $0, parameters), caller) }
                                .answer(responder, refusal: failed)
                        } catch {
                            responder.respond(failed(error))
                        }
                    }
                case .confirm(let c, let slot):
                    return .blocking { [self] in
                        do throws(UploadError) {
                            let confirmed = try confirmer.confirm(
                                c, owner: caller.userId, accepting: r.config.types, into: slot)
                            return mark(confirmedAnswer(r, confirmed.record, parameters), caller)
                        } catch {
                            return failed(error)
                        }
                    }
                }
            } catch {
                return .respond(mark(r.presenter.response(for: error, parameters: parameters), caller))
            }
        }
    }

    /// The response marked with the caller, for the access log.
    private func mark(_ response: Response, _ caller: Caller) -> Response { response.marked(for: caller) }

    // MARK: - Checking requests (event loop)

    /// issueByType: the type (fixed or from a member) and extension from the query (GET) or the JSON
    /// body, checked and signed on the loop like `GET /presigned-url`, to be answered once its intent is
    /// stored (a HEAD answers no URL and stores none).
    func issueByType(_ r: CompiledRoute, _ request: Request, _ caller: Caller) throws(APIError) -> Pending<IssuedURL> {
        try checkParameters(request)
        var typeName = r.config.type
        var ext: String?
        var chatroomId = request.parameter("chatroomId")
        var declared = DeclaredInput.none
        if request.head.method == .GET {
            let (typeField, extField) = (r.config.typeField, r.config.extField)
            let wellFormed = request.forEachQueryItem { n, v in
                if n == typeField { typeName = v }
                if n == extField { ext = v }
                if n == "chatroomId", chatroomId == nil { chatroomId = v }
                if n != typeField && n != extField { _ = DeclaredFields.take(n, v, into: &declared) }
            }
            guard wellFormed else { throw .malformedQuery }
        } else {
            let object = try RequestValidation.jsonObject(request, maxDepth: 16, maxBytes: maxJsonBodyBytes)
            if let tf = r.config.typeField { typeName = object[tf]?.stringValue ?? "" }
            ext = object[r.config.extField]?.stringValue
            if chatroomId == nil { chatroomId = object["chatroomId"]?.stringValue }
            var errors = FieldErrors()
            declared = DeclaredFields.merged(DeclaredFields.read(object, errors: &errors), try queryDeclared(request))
            if !errors.isEmpty { throw .validation(errors) }
        }
        do throws(UploadError) {
            let upload = try issuer.catalog.checkNew(
                typeName: typeName, ext: ext, chatroomId: chatroomId, declared: declared)
            return try issuer.issue(
                upload, owner: caller.userId, signing: .configured, expires: r.config.expiresSeconds,
                recordsIntent: request.head.method != .HEAD)
        } catch {
            throw APIError(error, fields: r.presenter.fields)
        }
    }

    /// issueByKey and confirm/replace: the body's members where the route says they are.
    func validate(_ r: CompiledRoute, _ request: Request) throws(APIError) -> Work {
        try checkParameters(request)
        let object = try RequestValidation.jsonObject(request, maxDepth: 32, maxBytes: maxJsonBodyBytes)
        if r.config.operation == .issueByKey { return .issueByKey(try keyedUpload(r, object, request)) }
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
            Confirmation(imageKey: key, metadataJSON: String(decoding: metadata.bytes, as: UTF8.self)),
            slot: slot.map { Slot(name: $0, deletePrevious: r.config.deletePrevious) })
    }

    /// issueByKey's body: the content type and key where the route says they are, the route's fixed
    /// type (else `presign.defaultPostType`), and the declared size and digests (members of the body, or
    /// parameters of the query), checked against the type.
    func keyedUpload(_ r: CompiledRoute, _ object: JSONObject, _ request: Request) throws(APIError) -> KeyedUpload {
        var errors = FieldErrors()
        let ctField = r.config.contentTypeField
        var contentType: String?
        switch object[ctField] {
        case nil: errors.add(ctField, "\(ctField) is required")
        case .some(let v):
            if let s = v.stringValue { contentType = s } else { errors.add(ctField, "\(ctField) must be a string") }
        }
        let imageKey = RequestValidation.requiredString(
            object, r.config.keyField, invalid: "\(r.config.keyField) must be a UUID", errors: &errors,
            canonical: RequestValidation.canonicalUUID)
        // The declaration: the body's members, else the query's parameters (an app whose body is fixed).
        let declared = DeclaredFields.merged(DeclaredFields.read(object, errors: &errors), try queryDeclared(request))
        let (upload, problems) = issuer.catalog.checkKeyed(
            KeyedRequest(
                typeName: r.config.type ?? defaultPostType, contentType: contentType, imageKey: imageKey,
                declared: declared, expiresSeconds: r.config.expiresSeconds))
        guard errors.isEmpty, problems.isEmpty, let upload else {
            throw .validation(
                FieldErrors(
                    parsed: errors, problems: problems, fields: r.presenter.fields,
                    order: [r.presenter.fields.type, ctField, r.config.keyField] + DeclaredFields.members))
        }
        return upload
    }

    /// The declaration in a request's query (`size`, `checksumSHA256`, `contentMD5`), for the routes
    /// whose body an app fixes.
    func queryDeclared(_ request: Request) throws(APIError) -> DeclaredInput {
        var declared = DeclaredInput.none
        guard request.forEachQueryItem({ n, v in _ = DeclaredFields.take(n, v, into: &declared) }) else {
            throw .malformedQuery
        }
        return declared
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

    // MARK: - Answers

    /// The success answer of an issue.
    func issuedAnswer(_ r: CompiledRoute, _ issued: IssuedURL, _ parameters: [(name: String, value: String)])
        -> Response
    {
        var v = Envelope.Values()
        v.url = issued.presigned.url
        v.key = issued.key
        v.imageKey = issued.imageKey ?? issued.key
        v.expiresAtMs = issued.expiresAtMs
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
        // A record still `scanning` has no URL yet (null in the envelope) and answers 202 (docs/scanning.md).
        let published = record.state == .published
        v.url = published ? records.readURL(for: record.objectKey, expires: r.config.readUrlExpiresSeconds) : nil
        v.key = record.objectKey
        v.imageKey = record.imageKey
        v.id = record.id
        v.type = record.type
        v.contentType = record.contentType
        v.size = record.size
        v.createdAtMs = record.createdAtMs
        v.metadataJSON = record.metadataJSON
        v.sha256 = record.sha256
        v.parameters = parameters
        let status = record.state == .scanning ? 202 : r.config.success.status ?? 200
        return Response(status: status, headers: APIError.jsonNoStoreHeaders, body: r.success.render(v))
    }
}
