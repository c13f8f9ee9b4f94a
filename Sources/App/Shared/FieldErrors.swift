/// The field errors of one request, in the order they were found (the body of a 422).
public struct FieldErrors: Sendable, Equatable, ExpressibleByDictionaryLiteral {
    /// Each field with its message.
    public private(set) var list: [(field: String, message: String)] = []

    /// No errors yet.
    public init() {}

    /// The errors of a literal, in its order (`["type": "unknown type"]`).
    public init(dictionaryLiteral elements: (String, String)...) {
        for (field, message) in elements { add(field, message) }
    }

    /// True when nothing was found wrong.
    public var isEmpty: Bool { list.isEmpty }

    /// Records `message` for `field` (the first message of a field wins).
    public mutating func add(_ field: String, _ message: String) {
        if !list.contains(where: { $0.field == field }) { list.append((field, message)) }
    }

    /// The same fields with the same messages, in the same order.
    public static func == (a: FieldErrors, b: FieldErrors) -> Bool {
        a.list.count == b.list.count
            && zip(a.list, b.list).allSatisfy { $0.field == $1.field && $0.message == $1.message }
    }
}
