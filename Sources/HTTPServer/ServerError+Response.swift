/// The one place the server's own answers take their shape.
extension ServerError {
    /// The answer: the route's `renderer` when it has one (an app's envelope, which may choose another
    /// status), else `errorBody` (`ServerOptions.errorBody`); then `answerHeaders` (`Allow`,
    /// `Retry-After`), which the server adds whatever the shape.
    public func response(renderer: ErrorRenderer?, errorBody: ErrorBodyRenderer) -> Response {
        var r: Response
        if let renderer {
            r = renderer(status, code, message)
        } else {
            let (contentType, body) = errorBody(status, code, message)
            r = Response(status: status, headers: [("Content-Type", contentType)], body: body)
        }
        let extra = answerHeaders
        if !extra.isEmpty { r.headers.append(contentsOf: extra) }
        return r
    }
}
