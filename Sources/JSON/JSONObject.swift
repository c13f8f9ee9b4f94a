/// A JSON object that keeps its members in document order, with lookup by key.
///
/// Keys are unique (the parser rejects duplicates). Small objects are searched linearly; objects
/// with more than `indexThreshold` members also keep a dictionary from key to position, so that
/// building or reading a large object stays linear overall. Equality compares members in order.
public struct JSONObject: Sendable, Equatable {
    /// One `"key": value` pair.
    public struct Member: Sendable, Equatable {
        /// The member name.
        public var key: String
        /// The member value.
        public var value: JSONValue

        /// Makes a member.
        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// Above this many members a key index is kept.
    static let indexThreshold = 12

    /// The members in document (or insertion) order.
    public private(set) var members: [Member]

    /// Position of each key, present only for objects larger than `indexThreshold`.
    private var index: [String: Int]?

    /// An empty object.
    public init() {
        members = []
        index = nil
    }

    /// An object of `members`, in order; a repeated key is a programmer mistake.
    public init(_ members: [(String, JSONValue)]) {
        self.init()
        for (key, value) in members {
            let added = append(key: key, value: value)
            precondition(added, "JSONObject: duplicate key \(key)")
        }
    }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The position of `key`, if present.
    public func position(of key: String) -> Int? {
        if let index { return index[key] }
        return members.firstIndex { $0.key == key }
    }

    /// True when `key` is present.
    public func contains(_ key: String) -> Bool { position(of: key) != nil }

    /// The value of `key`; setting `nil` removes the member, setting a new key appends it.
    public subscript(key: String) -> JSONValue? {
        get {
            guard let position = position(of: key) else { return nil }
            return members[position].value
        }
        set {
            if let position = position(of: key) {
                if let newValue {
                    members[position].value = newValue
                } else {
                    members.remove(at: position)
                    rebuildIndex()
                }
            } else if let newValue {
                _ = append(key: key, value: newValue)
            }
        }
    }

    /// Appends a member unless `key` is already present; returns false (and changes nothing) if it is.
    @discardableResult
    public mutating func append(key: String, value: JSONValue) -> Bool {
        if position(of: key) != nil { return false }
        members.append(Member(key: key, value: value))
        if index != nil {
            index![key] = members.count - 1
        } else if members.count > Self.indexThreshold {
            rebuildIndex()
        }
        return true
    }

    /// Makes room for `count` members without growing (the parser's top-level object).
    mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }

    /// Recomputes the key index after a removal or when crossing the threshold.
    private mutating func rebuildIndex() {
        guard members.count > Self.indexThreshold else {
            index = nil
            return
        }
        var newIndex = [String: Int](minimumCapacity: members.count)
        for (position, member) in members.enumerated() { newIndex[member.key] = position }
        index = newIndex
    }

    /// Members equal and in the same order.
    public static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members == rhs.members
    }
}

extension JSONObject: RandomAccessCollection {
    /// The position of the first member.
    public var startIndex: Int { members.startIndex }
    /// One past the last member.
    public var endIndex: Int { members.endIndex }
    /// The member at `position`.
    public subscript(position: Int) -> Member { members[position] }
}

extension JSONObject: ExpressibleByDictionaryLiteral {
    /// An object from a literal, in the literal's order; a repeated key is a programmer mistake.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self.init(elements)
    }
}
