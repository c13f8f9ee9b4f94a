import HTTPServer
import Uploads

/// The error presenter of a compatibility route: every failure (a refusal of the gate, a check's, the
/// lifecycle's) rendered from its typed error in the app's envelope for its code (or the route's
/// `default`), else the house's body; the house's headers (`Retry-After`, `WWW-Authenticate`) are kept.
struct CompatPresenter: Sendable {
    /// The route's error shapes.
    let shapes: ErrorShapes
    /// The route's member names, for the field errors of a rejected request.
    let fields: ProblemFields

    /// The answer to `error` on a request with these path `parameters`.
    func response(for error: APIError, parameters: [(name: String, value: String)]) -> Response {
        var response = error.response
        var fieldErrors: FieldErrors?
        if case .validation(let f) = error { fieldErrors = f }
        guard
            let (status, body) = shapes.render(
                status: error.status, code: error.code, message: error.message, fieldErrors: fieldErrors,
                parameters: parameters)
        else { return response }
        response.status = status
        response.body = body
        return response
    }

    /// The answer to a lifecycle failure, its problems named by the route's members.
    func response(for error: UploadError, parameters: [(name: String, value: String)]) -> Response {
        response(for: APIError(error, fields: fields), parameters: parameters)
    }
}
