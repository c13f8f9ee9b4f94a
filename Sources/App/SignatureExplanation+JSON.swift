import Explain
import JSON
import SigV4

extension SignatureExplanation {
    /// The answer of `POST /admin/explain` and `presignd explain`: `differences`, `signatureMatches`,
    /// `issuedByThisServer`, `storageCode`, `findings` (code, field, expected, got, hint, severity)
    /// and `expected` (what the server signs; no key, no signature, the session token redacted).
    public var jsonValue: JSONValue {
        func text(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
        let findings: [JSONValue] = findings.map { finding in
            .object([
                "code": .string(finding.code.rawValue), "field": .string(finding.field),
                "expected": text(finding.expected),
                "got": text(finding.got), "hint": .string(finding.hint), "severity": .string(finding.severity.rawValue),
            ])
        }
        var root: JSONObject = [
            "differences": .bool(hasDifferences), "signatureMatches": .bool(signatureMatches),
            "issuedByThisServer": issuedByThisServer.map(JSONValue.bool) ?? .null, "storageCode": text(storageCode),
            "findings": .array(findings),
        ]
        if let expected {
            var signed = JSONObject()
            for header in expected.signedHeaders { signed[header.name] = text(header.value) }
            root["expected"] = .object([
                "method": .string(expected.method), "methodAssumed": .bool(expected.methodAssumed),
                "host": .string(expected.host), "addressing": .string(expected.addressing),
                "bucket": .string(expected.bucket), "key": .string(expected.key), "signedHeaders": .object(signed),
                "parameters": .array(expected.parameters.map(JSONValue.string)), "validFrom": text(expected.validFrom),
                "expiresAt": text(expected.expiresAt), "canonicalRequest": .string(expected.canonicalRequest),
                "stringToSign": .string(expected.stringToSign),
            ])
        } else {
            root["expected"] = .null
        }
        return .object(root)
    }
}
