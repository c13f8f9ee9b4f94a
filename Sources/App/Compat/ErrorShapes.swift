import Config

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
    /// it has neither. Field errors go where the shape has `{fieldErrors}`; a shape without it gets them
    /// as its `{message}` (`field: message; …`), so the answer still names them.
    func render(
        status: Int, code: String, message: String, fieldErrors: FieldErrors? = nil,
        parameters: [(name: String, value: String)] = []
    ) -> (status: Int, body: [UInt8])? {
        guard let shape = byCode[code] ?? fallback else { return nil }
        var v = Envelope.Values()
        v.code = code
        v.message = message
        // A shape without field errors (client B's envelope) names the fields in its message instead.
        if let fieldErrors, !fieldErrors.isEmpty, !shape.envelope.uses(.fieldErrors) {
            v.message = fieldErrors.list.map { "\($0.field): \($0.message)" }.joined(separator: "; ")
        }
        v.status = shape.status ?? status
        v.fieldErrors = fieldErrors
        v.parameters = parameters
        return (v.status ?? status, shape.envelope.render(v))
    }
}
