extension Array where Element == UInt8 {
    /// `withUnsafeBytes` for a closure with typed throws (the standard library's is `rethrows`,
    /// which widens the error to `any Error`).
    func withBytes<Result>(_ body: (UnsafeRawBufferPointer) throws(HTTPClientError) -> Result)
        throws(HTTPClientError) -> Result
    {
        let outcome: Swift.Result<Result, HTTPClientError> = withUnsafeBytes { bytes in
            do throws(HTTPClientError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// `withUnsafeMutableBytes` for a closure with typed throws.
    mutating func withMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) throws(HTTPClientError) -> Result)
        throws(HTTPClientError) -> Result
    {
        let outcome: Swift.Result<Result, HTTPClientError> = withUnsafeMutableBytes { bytes in
            do throws(HTTPClientError) {
                return .success(try body(bytes))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }
}
