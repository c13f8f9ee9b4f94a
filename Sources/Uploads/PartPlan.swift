/// How the native API cuts a declared size into parts. Pure.
public enum PartPlan {
    /// The largest object S3 stores (5 TiB).
    public static let maxObjectBytes: Int64 = 5 * 1024 * 1024 * 1024 * 1024
    /// Part sizes the server chooses are whole MiB.
    static let mib: Int64 = 1024 * 1024

    /// Why a plan cannot be made.
    public enum Problem: Error, Equatable, Sendable {
        /// The size is not 1 byte to 5 TiB.
        case size
        /// The part size asked for is not 5 MiB to 5 GiB.
        case partSize
        /// The size in parts of the size asked for would be more than `maxParts`.
        case tooManyParts(count: Int64, maxParts: Int)
    }

    /// The part size of an upload of `size` bytes: `requested` when given (5 MiB to 5 GiB, at most
    /// `maxParts` parts), else the smallest whole number of MiB, at least 5, that needs at most `maxParts`.
    public static func partSize(size: Int64, requested: Int64?, maxParts: Int) throws(Problem) -> Int64 {
        guard size >= 1, size <= maxObjectBytes else { throw .size }
        let limit = Int64(max(1, maxParts))
        if let requested {
            guard requested >= PartRules.minPartBytes, requested <= PartRules.maxPartBytes else { throw .partSize }
            let count = (size + requested - 1) / requested
            guard count <= limit else { throw .tooManyParts(count: count, maxParts: maxParts) }
            return requested
        }
        let least = (size + limit - 1) / limit
        let rounded = (least + mib - 1) / mib * mib
        let chosen = max(PartRules.minPartBytes, rounded)
        guard chosen <= PartRules.maxPartBytes else {
            throw .tooManyParts(count: (size + PartRules.maxPartBytes - 1) / PartRules.maxPartBytes, maxParts: maxParts)
        }
        return chosen
    }
}
