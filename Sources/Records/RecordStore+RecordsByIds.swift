extension RecordStore {
    /// One `record(id:ownerId:)` per id: for a store without a query of its own (test wrappers).
    public func records(ids: [String], ownerId: String) throws(RecordsError) -> [ImageRecord] {
        try RecordStoreLimits.checkIdsPerRead(ids.count)
        var found: [ImageRecord] = []
        found.reserveCapacity(ids.count)
        for id in ids {
            if let record = try record(id: id, ownerId: ownerId) { found.append(record) }
        }
        return found
    }
}

extension RecordStoreLimits {
    /// The most ids `RecordStore.records(ids:ownerId:)` reads in one call.
    public static let maxIdsPerRead = 1000

    /// Throws `.invalidArgument` unless `count` is in `0...maxIdsPerRead`.
    package static func checkIdsPerRead(_ count: Int) throws(RecordsError) {
        guard count <= maxIdsPerRead else {
            throw .invalidArgument("\(count) ids in one read; the most is \(maxIdsPerRead)")
        }
    }
}
