import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Everything the client can fail with, typed so that callers (and the CLI's exit codes) can tell a
/// refusal of our API from a refusal of the storage and from the network.
public enum PresignClientError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The presignd API answered with an error status. `code` is the body's `code`, `message` its
    /// `message` (Companion's `error` text for the `/s3` routes), `fieldErrors` its `fieldErrors` by
    /// field (`["size": "must be at most 20971520"]`: client P's 422 and the native validation errors).
    case server(status: Int, code: String?, message: String?, fieldErrors: [String: String] = [:])
    /// The storage refused the PUT: its status and the `<Code>` of its XML error body
    /// (`SignatureDoesNotMatch`, `EntityTooLarge`, `AccessDenied` for an expired URL, …).
    case storage(status: Int, code: String?, message: String?)
    /// The request did not get an answer (connection refused or reset, time-out, DNS).
    case network(code: Int, description: String)
    /// The caller's task was cancelled.
    case cancelled
    /// An answer we cannot use (not JSON, a missing field, a URL `URL(string:)` would change).
    case invalidResponse(String)
    /// A local file could not be read or written.
    case file(String)
    /// The multipart upload is gone on the server (aborted, expired): start again with a new key and
    /// upload id. The uploader does this on its own; it is raised only when restarts are exhausted.
    case uploadGone(code: String?)

    /// The HTTP status of a refusal (nil for the other cases).
    public var status: Int? {
        switch self {
        case .server(let s, _, _, _), .storage(let s, _, _): return s
        default: return nil
        }
    }

    /// The server's error `code`, if this is a refusal of our API.
    public var serverCode: String? {
        if case .server(_, let code, _, _) = self { return code }
        return nil
    }

    /// True for the refusal `createMultipart` reports when the server does not serve the multipart
    /// routes (404 `NOT_FOUND`: its `uppy.enabled` is off).
    public var isMultipartNotServed: Bool {
        if case .server(404, "NOT_FOUND", let message?, _) = self { return message.contains("uppy.enabled") }
        return false
    }

    /// The storage's XML error code, if this is a refusal of the storage.
    public var storageCode: String? {
        if case .storage(_, let code, _) = self { return code }
        return nil
    }

    /// The server's field errors, if this is a refusal of our API that named fields (else empty).
    public var fieldErrors: [String: String] {
        if case .server(_, _, _, let fields) = self { return fields }
        return [:]
    }

    /// `server refused (HTTP 422, 4220): UNPROCESSABLE_CONTENT (size: must be at most 20971520; …)`:
    /// every field error, sorted by field.
    public var description: String {
        switch self {
        case .server(let s, let c, let m, let fields):
            var text = "server refused (HTTP \(s)\(c.map { ", \($0)" } ?? ""))\(m.map { ": \($0)" } ?? "")"
            if !fields.isEmpty {
                text +=
                    " ("
                    + fields.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value)" }
                    .joined(separator: "; ") + ")"
            }
            return text
        case .storage(let s, let c, let m):
            return "storage refused the upload (HTTP \(s)\(c.map { ", \($0)" } ?? ""))\(m.map { ": \($0)" } ?? "")"
        case .network(let code, let d): return "network error (\(code)): \(d)"
        case .cancelled: return "cancelled"
        case .invalidResponse(let d): return "unexpected answer: \(d)"
        case .file(let d): return "file error: \(d)"
        case .uploadGone(let c): return "the multipart upload is gone on the server (\(c ?? "no code"))"
        }
    }

    /// Maps an error thrown by URLSession (or anything else) to this type.
    static func from(_ error: Error) -> PresignClientError {
        if let e = error as? PresignClientError { return e }
        if error is CancellationError { return .cancelled }
        if let u = error as? URLError {
            if u.code == .cancelled { return .cancelled }
            return .network(code: u.code.rawValue, description: u.localizedDescription)
        }
        let ns = error as NSError
        if ns.domain == NSURLErrorDomain {
            if ns.code == NSURLErrorCancelled { return .cancelled }
            return .network(code: ns.code, description: ns.localizedDescription)
        }
        return .network(code: 0, description: String(describing: error))
    }
}

/// Reading S3's XML error body (`<Error><Code>…</Code><Message>…</Message></Error>`) without an XML parser:
/// the two elements are plain text in every S3-compatible store.
enum StorageErrorBody {
    static func element(_ name: String, in body: Data) -> String? {
        let text = String(decoding: body, as: UTF8.self)
        guard let open = text.range(of: "<\(name)>"),
            let close = text.range(of: "</\(name)>", range: open.upperBound..<text.endIndex)
        else { return nil }
        let value = String(text[open.upperBound..<close.lowerBound])
        return value.isEmpty ? nil : value
    }

    /// The typed error for a storage answer with an error status.
    static func error(status: Int, body: Data) -> PresignClientError {
        .storage(status: status, code: element("Code", in: body), message: element("Message", in: body))
    }
}

/// Reading our API's error body: `{"code","message"}` (native routes, client P's), `{"error"}` (the `/s3`
/// routes, shaped as Uppy Companion answers) or client B's envelope `{"success":false,"message"}`.
enum ServerErrorBody {
    static func error(status: Int, body: Data) -> PresignClientError {
        let object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any]
        var code = (object?["code"] as? String) ?? (object?["code"] as? Int).map(String.init)
        let message = (object?["message"] as? String) ?? (object?["error"] as? String)
        // Client B's envelope `{"success":false,"message":"IMAGE_NOT_UPLOADED","data":null}` has no
        // code: a message that is one upper-case token is its code.
        if code == nil, object?["success"] as? Bool == false, let m = message, !m.isEmpty,
            m.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" })
        {
            code = m
        }
        var fields: [String: String] = [:]
        if let given = object?["fieldErrors"] as? [String: Any] {
            for (name, value) in given {
                if let text = value as? String {
                    fields[name] = text
                } else if let list = value as? [Any] {
                    fields[name] = list.map { "\($0)" }.joined(separator: "; ")
                } else {
                    fields[name] = "\(value)"
                }
            }
        }
        return .server(status: status, code: code, message: message, fieldErrors: fields)
    }
}
