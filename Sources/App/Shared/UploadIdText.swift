/// Storage's upload IDs as the multipart routes (Companion's and the native API's) accept them.
enum UploadIdText {
    /// 1...1024 printable ASCII bytes (no space).
    static func isValid(_ id: String) -> Bool {
        let u = id.utf8
        guard !u.isEmpty, u.count <= 1024 else { return false }
        let checked = u.withContiguousStorageIfAvailable { bytes in
            for b in bytes where b <= 0x20 || b >= 0x7f { return false }
            return true
        }
        return checked ?? u.allSatisfy { $0 > 0x20 && $0 < 0x7f }
    }
}
