import Foundation
import Testing

/// `Fixtures/sigv4-presign.json`: presigned URLs made by botocore 1.43.11 (s3v4, UNSIGNED-PAYLOAD)
/// at a fixed time, loaded from the test bundle.
struct PresignFixtures: Decodable {
    /// How the file was made.
    let source: String
    /// The access key ID of every case.
    let accessKeyId: String
    /// The secret access key of every case.
    let secretAccessKey: String
    /// The cases.
    let cases: [Case]

    /// One presigned URL and what it was made from.
    struct Case: Decodable, Sendable, CustomTestStringConvertible {
        let name: String
        let method: String
        let bucket: String
        let key: String
        let region: String
        let endpoint: String
        let addressing: String
        let expires: Int
        let amzDate: String
        let signedHeaders: [String: String]
        let sessionToken: String?
        let url: String
        let signature: String
        var testDescription: String { name }
    }

    /// The fixtures file, decoded.
    static func load() throws -> PresignFixtures {
        guard let url = Bundle.module.url(forResource: "sigv4-presign", withExtension: "json", subdirectory: "Fixtures")
        else { throw FixtureError.missing("Fixtures/sigv4-presign.json") }
        return try JSONDecoder().decode(PresignFixtures.self, from: Data(contentsOf: url))
    }

    /// The cases, for parameterised tests (an empty list would make those tests pass vacuously,
    /// so a separate test checks the count).
    static let cases: [Case] = (try? load().cases) ?? []

    /// Epoch seconds of a `YYYYMMDDTHHMMSSZ` timestamp, through Foundation's calendar (an
    /// implementation independent of `AmzDate`).
    static func epochSeconds(amzDate: String) throws -> Int64 {
        let digits = Array(amzDate.utf8)
        guard digits.count == 16 else { throw FixtureError.malformed(amzDate) }
        func number(_ range: Range<Int>) -> Int { Int(String(decoding: digits[range], as: UTF8.self)) ?? -1 }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components = DateComponents(
            year: number(0..<4), month: number(4..<6), day: number(6..<8), hour: number(9..<11),
            minute: number(11..<13), second: number(13..<15))
        guard let date = calendar.date(from: components) else { throw FixtureError.malformed(amzDate) }
        return Int64(date.timeIntervalSince1970)
    }
}

/// Why fixtures could not be loaded.
enum FixtureError: Error {
    /// The resource is not in the bundle.
    case missing(String)
    /// A field could not be parsed.
    case malformed(String)
}
