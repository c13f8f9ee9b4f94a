import HTTPServer
import Uploads

/// How one group of routes answers its failures, in its own dialect (as Hummingbird answers an
/// `HTTPResponseError` through a group's middleware): the native `{"code","message"}`, an app's
/// envelope, Companion's `{"error","code"}`. Every route of a group (`RouteGroup`) turns whatever it
/// throws, and the gate's refusals, into a response here and nowhere else.
protocol ErrorPresenter: Sendable {
    /// What the group's handlers throw.
    associatedtype Failure: Error

    /// The answer to `failure`.
    func response(for failure: Failure) -> Response

    /// The gate's refusal (401, 429, 400) as the group's failure.
    func failure(refused: APIError) -> Failure

    /// A lifecycle failure that arrives outside a handler (an intent not stored before the answer) as the
    /// group's failure.
    func failure(upload: UploadError) -> Failure
}
