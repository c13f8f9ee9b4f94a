import HTTPServer
import Uploads

/// The house's error presenter: an `APIError` as `{"code":…,"message":…}` (with `fieldErrors` for a
/// 422), the gate's refusals alike. The native routes' group presents with it, and so do explain and
/// the operator routes; a compatibility route falls back to it for a code its app gave no shape.
struct HousePresenter: ErrorPresenter {
    /// The answer to `error`.
    func response(for error: APIError) -> Response { error.response }

    /// The gate's refusal, as it is.
    func failure(refused: APIError) -> APIError { refused }

    /// The lifecycle's failure in the house's terms.
    func failure(upload: UploadError) -> APIError { APIError(upload) }
}
