#if canImport(Glibc)
    import Glibc
#endif

extension String {
    /// Whether `other` is byte for byte this string's UTF-8, as SQLite compares text (BINARY). Swift's
    /// `==` would also call an NFC and an NFD spelling equal. One `memcmp` of contiguous UTF-8, not the
    /// generic walk of `utf8.elementsEqual` (the intent writer calls this for every intent).
    package func hasSameBytes(as other: String) -> Bool {
        var a = self
        var b = other
        return a.withUTF8 { x in
            b.withUTF8 { y in
                x.count == y.count && (x.count == 0 || memcmp(x.baseAddress!, y.baseAddress!, x.count) == 0)
            }
        }
    }
}
