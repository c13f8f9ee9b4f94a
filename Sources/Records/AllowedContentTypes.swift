/// How an intent's list of allowed content types is kept in one text column: the types joined by `\n`.
///
/// A content type is an HTTP field value, which cannot hold a line feed, so the join is unambiguous; a
/// type that contains one, or an empty type, is refused.
package enum AllowedContentTypes {
    /// The column text for `types`.
    package static func encode(_ types: [String]) throws(RecordsError) -> String {
        try validate(types)
        return types.joined(separator: "\n")
    }

    /// Refuses an empty type or one with a line feed (every store refuses the same intents).
    package static func validate(_ types: [String]) throws(RecordsError) {
        for type in types {
            var text = type
            let bad = text.withUTF8 { bytes in bytes.isEmpty || bytes.contains(UInt8(ascii: "\n")) }
            if bad { throw .constraint("an allowed content type is empty or contains a line feed") }
        }
    }

    /// The list stored as `text`.
    package static func decode(_ text: String) -> [String] {
        text.isEmpty ? [] : text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }
}
