import Config
import HTTPServer
import JSON
import Uploads

/// The checks every route makes of what a client sends: identifiers, media types, JSON bodies. Pure.
enum RequestValidation {
    /// `[0-9]{1,19}`.
    static func isNumericId(_ s: String) -> Bool { UploadRules.isNumericId(s) }

    /// `application/json`, with optional parameters.
    static func isJSONContentType(_ s: String) -> Bool {
        let media = s.split(separator: ";", maxSplits: 1).first.map { $0.trimmingSpaces() } ?? ""
        return media.lowercased() == "application/json"
    }

    /// A UUID (8-4-4-4-12 hex digits, either case) in lower case, or nil.
    static func canonicalUUID(_ s: String) -> String? {
        let u = Array(s.utf8)
        guard u.count == 36 else { return nil }
        var out = [UInt8]()
        out.reserveCapacity(36)
        for (i, b) in u.enumerated() {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard b == UInt8(ascii: "-") else { return nil }
                out.append(b)
                continue
            }
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"): out.append(b)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): out.append(b + 32)
            default: return nil
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// A UUID (lower-cased) or a safe object key; nil otherwise.
    static func canonicalImageKey(_ s: String) -> String? {
        if let u = canonicalUUID(s) { return u }
        return KeyTemplate.isSafeKey(s) ? s : nil
    }

    /// The member `name` of `object` in the canonical form `canonical` gives it; when it is missing,
    /// `name is required`, and when `canonical` refuses it (or it is not a string), `invalid`, are
    /// added to `errors` instead.
    static func requiredString(
        _ object: JSONObject, _ name: String, invalid: String, errors: inout FieldErrors,
        canonical: (String) -> String?
    ) -> String? {
        guard let value = object[name] else {
            errors.add(name, "\(name) is required")
            return nil
        }
        guard let text = value.stringValue, let canonicalText = canonical(text) else {
            errors.add(name, invalid)
            return nil
        }
        return canonicalText
    }

    /// The JSON object a request's body holds: 415 unless it is sent as `application/json` (or without
    /// a `Content-Type`), 400 when it does not parse within `maxDepth` and `maxBytes`, 422 when it is
    /// not an object.
    static func jsonObject(_ request: Request, maxDepth: Int, maxBytes: Int) throws(APIError) -> JSONObject {
        if let ct = request.header("Content-Type"), !isJSONContentType(ct) { throw .unsupportedMediaType }
        let document: JSONValue
        do {
            document = try JSONParser(limits: .init(maxDepth: maxDepth, maxBytes: maxBytes)).parse(request.body)
        } catch {
            throw .malformedJSON(error.message)
        }
        guard let object = document.objectValue else { throw .validation(["body": "the body must be a JSON object"]) }
        return object
    }
}

extension Substring {
    /// The substring without leading and trailing spaces and tabs.
    func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}
