import HTTP1

/// The development mode's check for a mistyped user header: a request header whose name resembles
/// `auth.devUserHeader` without being it (`X-UserId`, `X-User`, `User-Id`, `X_User_Id`, `X-Usr-Id` for
/// `X-User-Id`), so the caller learns that it was served as the default user instead.
///
/// Names are compared by their letters and digits, lower case (`X-User-Id` -> `xuserid`): a name
/// resembles the user header when that form equals the user header's, when their cores (the form
/// without an `x` prefix of an `X-` name and without an `id` suffix: `user`) are equal, or when the
/// two forms are one edit apart (a letter added, dropped, changed or two swapped), the shorter form
/// having at least four characters.
struct UserHeaderLookalike: Sendable {
    /// The letters and digits of the user header, lower case.
    let form: [UInt8]
    /// Its core.
    let core: [UInt8]

    /// The check for `userHeader`.
    init(userHeader: String) {
        form = Self.form(userHeader)
        core = Self.core(userHeader)
    }

    /// The first header of `headers` that resembles the user header, by its name as sent.
    func find(in headers: HTTPHeaders) -> String? {
        for (name, _) in headers where resembles(name) { return name }
        return nil
    }

    /// True when `name` resembles the user header (the user header itself never reaches here: HTTP
    /// header names are case-insensitive, and the resolver has looked it up first).
    func resembles(_ name: String) -> Bool {
        let other = Self.form(name)
        if other == form { return true }
        let otherCore = Self.core(name)
        if !otherCore.isEmpty && otherCore == core { return true }
        return min(other.count, form.count) >= 4 && Self.withinOneEdit(other, form)
    }

    /// `name`'s letters and digits, ASCII lower case.
    static func form(_ name: String) -> [UInt8] {
        name.utf8.compactMap { b in
            switch b {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"): return b + 32
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return b
            default: return nil
            }
        }
    }

    /// `name`'s form without the `x` of an `X-`/`X_` prefix and without an `id` suffix.
    static func core(_ name: String) -> [UInt8] {
        var f = form(name)
        let lower = name.lowercased()
        if lower.hasPrefix("x-") || lower.hasPrefix("x_") { f.removeFirst() }
        if f.count > 2 && f.suffix(2) == [UInt8(ascii: "i"), UInt8(ascii: "d")] { f.removeLast(2) }
        return f
    }

    /// True when `a` and `b` differ by at most one insertion, deletion, substitution or swap of two
    /// neighbours (the optimal string alignment distance is at most 1).
    static func withinOneEdit(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        let (short, long) = a.count <= b.count ? (a, b) : (b, a)
        guard long.count - short.count <= 1 else { return false }
        var i = 0
        while i < short.count && short[i] == long[i] { i += 1 }
        // Equal, or one character added at the end.
        if i == short.count { return true }
        if short.count < long.count { return short[i...] == long[(i + 1)...] }
        // One character changed, or two neighbours swapped.
        if short[(i + 1)...] == long[(i + 1)...] { return true }
        return i + 1 < short.count && short[i] == long[i + 1] && short[i + 1] == long[i]
            && short[(i + 2)...] == long[(i + 2)...]
    }
}
