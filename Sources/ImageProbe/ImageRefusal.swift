/// Why an object is not an allowed image.
///
/// `code` is stable (for logs, metrics and error bodies); `message` is written for a client and never
/// echoes the object's bytes.
public enum ImageRefusal: Sendable, Equatable, CustomStringConvertible {
    /// A document made of markup, by what its first element or doctype says.
    public enum MarkupKind: String, Sendable, Equatable, CaseIterable {
        /// An HTML document (a doctype `html` or an HTML element first, as browsers sniff it).
        case html
        /// An SVG document (an `svg` doctype or root element): scriptable, so never an upload.
        case svg
        /// An XML document (it starts with `<?xml`) whose root is neither HTML nor SVG.
        case xml
        /// Text that starts with `<` but is none of the above.
        case other
    }

    /// No bytes at all: the object is empty.
    case empty
    /// The leading bytes match no allowed image format and no known document.
    case unknownSignature
    /// Markup (after an optional UTF-8 byte order mark and white space, the first byte is `<`).
    case markup(MarkupKind)
    /// Text with no markup: no binary bytes in the text window.
    case text
    /// A PDF document (`%PDF-`).
    case pdf
    /// A ZIP archive (`PK` and a local, central-end or spanning header), which includes office documents.
    case zip
    /// The bytes end inside the header: the object itself is cut short when the bytes are all of it;
    /// otherwise the format could not be told from the bytes given. The format is nil when not yet known.
    case truncated(ImageFormat?)
    /// The header contradicts its format's specification, or breaks a decoder limit. The format is nil
    /// when the file type box of an ISO BMFF file is itself malformed.
    case malformed(ImageFormat?, ImageDefect)

    /// A short stable identifier: `empty`, `unknown_signature`, `html`, `svg`, `xml`, `markup`, `text`,
    /// `pdf`, `zip`, `truncated` or `malformed`.
    public var code: String {
        switch self {
        case .empty: return "empty"
        case .unknownSignature: return "unknown_signature"
        case .markup(.other): return "markup"
        case .markup(let kind): return kind.rawValue
        case .text: return "text"
        case .pdf: return "pdf"
        case .zip: return "zip"
        case .truncated: return "truncated"
        case .malformed: return "malformed"
        }
    }

    /// One sentence for a client.
    public var message: String {
        switch self {
        case .empty: return "the object is empty"
        case .unknownSignature: return "the object is not an image of an allowed format"
        case .markup(.html): return "the object is an HTML document, not an image"
        case .markup(.svg): return "the object is an SVG document, which is not an allowed image format"
        case .markup(.xml): return "the object is an XML document, not an image"
        case .markup(.other): return "the object is a markup document, not an image"
        case .text: return "the object is text, not an image"
        case .pdf: return "the object is a PDF document, not an image"
        case .zip: return "the object is a ZIP archive, not an image"
        case .truncated(let format?): return "the object ends inside its \(format.rawValue.uppercased()) header"
        case .truncated(nil): return "the object ends before its format could be told"
        case .malformed(let format?, let defect):
            return "the object's \(format.rawValue.uppercased()) header is malformed: \(defect)"
        case .malformed(nil, let defect): return "the object's file type box is malformed: \(defect)"
        }
    }

    /// `message`.
    public var description: String { message }
}
