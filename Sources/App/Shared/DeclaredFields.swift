import JSON
import Uploads

/// The members every issue route reads the client's declaration of its object from (`size`,
/// `checksumSHA256`, `contentMD5`), in a JSON body or a query: read here, checked by
/// `UploadCatalog.checkDeclared` (whose problems each route names in its own shape).
enum DeclaredFields {
    /// The member names, in the order their errors are reported.
    static let members = ["size", "contentMD5", "checksumSHA256"]

    /// The declaration in `object`'s members (absent or null: not declared); a digest that is not a
    /// string is a field error here, a size that is not a whole number a problem of the check.
    static func read(_ object: JSONObject, errors: inout FieldErrors) -> DeclaredInput {
        var declared = DeclaredInput()
        switch object["size"] {
        case nil, .null?: break
        case .number(let n)?: declared.size = DeclaredInput.size(text: n.literal)
        case .some: declared.size = .malformed
        }
        for member in ["checksumSHA256", "contentMD5"] {
            guard let value = object[member], !value.isNull else { continue }
            guard let text = value.stringValue else {
                errors.add(member, "\(member) must be a string (base64)")
                continue
            }
            if member == "checksumSHA256" { declared.checksumSHA256 = text } else { declared.contentMD5 = text }
        }
        return declared
    }

    /// Takes the query parameter `name` = `value` into `declared` when it is one of the members; false
    /// when it is another parameter.
    static func take(_ name: String, _ value: String, into declared: inout DeclaredInput) -> Bool {
        switch name {
        case "size": declared.size = DeclaredInput.size(text: value)
        case "checksumSHA256": declared.checksumSHA256 = value
        case "contentMD5": declared.contentMD5 = value
        default: return false
        }
        return true
    }

    /// `first`, with the members `second` declares and `first` does not (a compatibility route's body
    /// before its query).
    static func merged(_ first: DeclaredInput, _ second: DeclaredInput) -> DeclaredInput {
        DeclaredInput(
            size: first.size ?? second.size, checksumSHA256: first.checksumSHA256 ?? second.checksumSHA256,
            contentMD5: first.contentMD5 ?? second.contentMD5)
    }
}
