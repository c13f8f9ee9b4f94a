import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A session delegate for following `GET /images/{id}/content`'s 302 to storage: it drops the API's
/// credentials (`Authorization`, `X-Api-Key`, and any header named in `dropping`) from a redirect
/// to another host. Storage refuses a signed URL that also carries an `Authorization` header (400
/// `InvalidArgument`), and URLSession keeps the original request's headers on a redirect (measured
/// with swift-corelibs-foundation), so a session that sends our API's bearer token needs this.
///
///     let session = URLSession(configuration: .default, delegate: StorageRedirectDelegate(), delegateQueue: nil)
///     let (data, _) = try await session.data(for: try client.contentRequest(for: id))
public final class StorageRedirectDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    /// Header names (any case) dropped besides `Authorization` and `X-Api-Key`.
    public let dropping: [String]

    /// A delegate dropping `Authorization`, `X-Api-Key` and `dropping` on a redirect to another host.
    public init(dropping: [String] = []) {
        self.dropping = dropping
    }

    /// `request` without the credentials when it goes to another host than `from`.
    public func redirect(_ request: URLRequest, from original: URLRequest?) -> URLRequest {
        guard let to = request.url, let from = original?.url,
            to.host?.lowercased() != from.host?.lowercased() || to.port != from.port || to.scheme != from.scheme
        else { return request }
        var stripped = request
        for name in ["Authorization", "X-Api-Key"] + dropping { stripped.setValue(nil, forHTTPHeaderField: name) }
        return stripped
    }

    public func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void
    ) {
        completionHandler(redirect(request, from: task.originalRequest))
    }
}
