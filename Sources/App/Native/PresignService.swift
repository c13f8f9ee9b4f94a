import Config
import HTTPServer
import Uploads

/// The native issue routes: `GET /presigned-url` (client P) and `POST /presigned-url` (client B), a thin
/// front door over `Uploads.Issuer`: parse, call, answer.
///
/// Both check the request on the event loop. Client P's URL is signed there too (presigning is pure
/// computation); client B's key is checked against the store first, so it is signed on a worker. Both
/// answer only once the URL's intent is stored (`Uploads.Pending`): parked without a worker until the
/// commit ends, or 503 `STORE_UNAVAILABLE` with `Retry-After` when it is not stored in time. The
/// routes are in `PresignService+Get.swift`, `PresignService+Post.swift`, and their shared answer in
/// `PresignService+Response.swift`.
public final class PresignService: Sendable {
    /// Issuing (types, signing, the intent hand-off).
    let issuer: Issuer
    /// The type of a client B request that names none.
    let defaultPostType: String
    /// Whether client P's GET routes are served (`presign.serveClientP`).
    let servesClientP: Bool
    private let gate: Gate
    /// The largest JSON body accepted.
    let maxJsonBodyBytes: Int

    /// The routes of `config` over `issuer`, admitted by `gate`.
    init(config: PresigndConfig, issuer: Issuer, gate: Gate) {
        self.issuer = issuer
        self.defaultPostType = config.presign.defaultPostType
        self.servesClientP = config.presign.serveClientP
        self.gate = gate
        self.maxJsonBodyBytes = config.server.maxJsonBodyBytes
    }

    /// The routes of this service.
    func routes() -> [Route] {
        let group = gate.house
        let get = group.route(
            .issue,
            promising: { [self] (caller, request) throws(APIError) in try issueForQuery(request, caller: caller) })
        let post = group.route(
            .issue, validate: { [self] (caller, request) throws(APIError) in try validateBody(request) },
            promising: { [self] (caller, upload) throws(APIError) in try issueForKey(upload, caller: caller) })
        let clientP = [
            Route(.GET, "/presigned-url", handler: get),
            Route(.GET, "/v1/storage/presigned-url", handler: get),
        ]
        return (servesClientP ? clientP : []) + [
            // Brief: the worker reads who holds the key from the store and signs; the commit is not its.
            Route(.POST, "/presigned-url", maxBodyBytes: maxJsonBodyBytes, brief: true, handler: post),
            Route(.POST, "/v1/storage/presigned-url", maxBodyBytes: maxJsonBodyBytes, brief: true, handler: post),
        ]
    }
}
