import JSON
import SigV4

/// Reads the JSON answers of the container agents and IMDS. Pure.
///
/// Success: `{"AccessKeyId", "SecretAccessKey", "Token", "Expiration"}` (IMDS adds
/// `"Code": "Success"`, `LastUpdated`, `Type`; others are ignored). Failure: `{"Code", "Message"}`.
enum CredentialsJSON {
    /// The credentials of a 200 answer; with `requireSuccessCode`, `Code` must be `Success` (IMDS);
    /// without `requireToken`, an answer without `Token` gives credentials without a session token.
    static func credentials(
        _ body: [UInt8], provider: String, now: Int64, requireSuccessCode: Bool, requireToken: Bool = true
    ) throws(CredentialsError) -> Credentials {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: body, limits: JSONParser.Limits(maxDepth: 8, maxBytes: 64 << 10))
        } catch {
            throw .malformedResponse(provider: provider, reason: "not JSON (\(error))")
        }
        guard let object = document.objectValue else {
            throw .malformedResponse(provider: provider, reason: "not a JSON object")
        }
        func field(_ name: String) throws(CredentialsError) -> String? {
            guard let value = object[name] else { return nil }
            guard let text = value.stringValue else {
                throw .malformedResponse(provider: provider, reason: "\(name) is a \(value.typeName), not a string")
            }
            return text
        }
        if requireSuccessCode || object["Code"] != nil {
            let code = try field("Code")
            guard code == "Success" else {
                let shown = code.flatMap { CredentialFields.sanitizedMessage($0) } ?? "missing"
                throw .malformedResponse(provider: provider, reason: "Code is \(shown), not Success")
            }
        }
        let fields = CredentialFields(
            accessKeyId: try field("AccessKeyId"), secretAccessKey: try field("SecretAccessKey"),
            sessionToken: try field("Token"), expiration: try field("Expiration"))
        return try fields.credentials(provider: provider, now: now, requiringSessionToken: requireToken)
    }

    /// `Code` and `Message` of an error answer, each nil when absent or not a string.
    static func error(_ body: [UInt8]) -> (code: String?, message: String?) {
        guard let document = try? JSONValue(parsing: body, limits: JSONParser.Limits(maxDepth: 8, maxBytes: 64 << 10))
        else { return (nil, nil) }
        var code = document["Code"]?.stringValue
        if let text = code,
            text.isEmpty || text.utf8.count > 64 || !text.utf8.allSatisfy(CredentialFields.isVisibleASCII)
        {
            code = nil
        }
        return (code, document["Message"]?.stringValue)
    }
}
