import Crypto
import Dispatch
import Synchronization
import Testing

@testable import SigV4

/// Credentials that expire: URL lifetimes clamped to them, and presigners swapped whole on rotation.
@Suite struct RotatingPresignerTests {
    static let endpoint = try! Endpoint(parsing: "https://s3.us-east-1.amazonaws.com")
    static let now: Int64 = 1_795_942_771

    /// Temporary credentials `id` expiring at `expiration`.
    static func credentials(_ id: String, expiration: Int64?) -> Credentials {
        Credentials(
            accessKeyId: id, secretAccessKey: Secret("secret-\(id)"), sessionToken: Secret("token-\(id)"),
            expiration: expiration)
    }

    @Test func lifetimesNeverOutliveTheCredentials() {
        let temporary = Self.credentials("ASIA1", expiration: Self.now + 300)
        #expect(temporary.lifetime(clamping: 600, now: Self.now) == 300)
        #expect(temporary.lifetime(clamping: 120, now: Self.now) == 120)
        #expect(temporary.lifetime(clamping: 600, now: Self.now + 299) == 1)
        #expect(temporary.lifetime(clamping: 600, now: Self.now + 300) == nil)
        #expect(temporary.lifetime(clamping: 600, now: Self.now + 10_000) == nil)
        #expect(!temporary.isExpired(at: Self.now + 299) && temporary.isExpired(at: Self.now + 300))
        let longTerm = Self.credentials("AKIA1", expiration: nil)
        #expect(longTerm.lifetime(clamping: 604_800, now: Self.now) == 604_800)
        #expect(!longTerm.isExpired(at: Int64.max))
    }

    @Test func aClampedURLExpiresWithItsCredentials() throws {
        let presigner = try Presigner(
            credentials: Self.credentials("ASIA1", expiration: Self.now + 250), region: "us-east-1",
            endpoint: Self.endpoint, addressing: .path)
        #expect(presigner.credentialsExpiration == Self.now + 250)
        let lifetime = try #require(presigner.lifetime(clamping: 600, now: Self.now))
        let url = try presigner.presign(
            PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: lifetime), now: Self.now)
        #expect(url.expiresAt == Self.now + 250)
        #expect(url.url.contains("&X-Amz-Expires=250&X-Amz-Security-Token=token-ASIA1&"))
    }

    @Test func rotationSwapsTheWholePresigner() throws {
        let first = try Presigner(
            credentials: Self.credentials("ASIA1", expiration: Self.now + 900), region: "us-east-1",
            endpoint: Self.endpoint, addressing: .virtual)
        let rotating = RotatingPresigner(first)
        let request = PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 60)
        let before = try rotating.current.presign(request, now: Self.now)

        try rotating.rotate(to: Self.credentials("ASIA2", expiration: Self.now + 3600))
        #expect(rotating.generation == 1)
        let current = rotating.current
        #expect(current !== first)
        #expect(current.accessKeyId == "ASIA2" && current.credentialsExpiration == Self.now + 3600)
        #expect(current.region == first.region && current.endpoint == first.endpoint && current.addressing == .virtual)
        let after = try current.presign(request, now: Self.now)
        #expect(
            after.url.contains("X-Amz-Credential=ASIA2%2F") && after.url.contains("X-Amz-Security-Token=token-ASIA2&"))
        #expect(
            before.url.contains("X-Amz-Credential=ASIA1%2F") && before.url.contains("X-Amz-Security-Token=token-ASIA1&")
        )

        // The new signature is the one a presigner built from scratch for the new credentials gives.
        let fresh = try Presigner(
            credentials: Self.credentials("ASIA2", expiration: nil), region: "us-east-1", endpoint: Self.endpoint,
            addressing: .virtual)
        #expect(try fresh.presign(request, now: Self.now).url == after.url)
        // A presigner held from before keeps signing with its own credentials.
        #expect(try first.presign(request, now: Self.now).url == before.url)
    }

    @Test func aRefusedRotationKeepsTheCurrentPresigner() throws {
        let rotating = RotatingPresigner(
            try Presigner(
                credentials: Self.credentials("ASIA1", expiration: nil), region: "us-east-1", endpoint: Self.endpoint,
                addressing: .path))
        #expect(throws: SigV4Error.self) {
            try rotating.rotate(to: Credentials(accessKeyId: "ASIA/2", secretAccessKey: Secret("s")))
        }
        #expect(rotating.current.accessKeyId == "ASIA1" && rotating.generation == 0)
    }

    @Test func concurrentReadersAlwaysSeeOneWholeSet() throws {
        let rotating = RotatingPresigner(
            try Presigner(
                credentials: Self.credentials("ASIA0", expiration: nil), region: "us-east-1", endpoint: Self.endpoint,
                addressing: .path))
        let request = PresignRequest(method: "PUT", bucket: "uploads", key: "k", expires: 60)
        let counts = Mutex((signed: 0, mismatched: 0))
        DispatchQueue.concurrentPerform(iterations: 4) { worker in
            for round in 1...200 {
                if worker == 0 {
                    try? rotating.rotate(to: Self.credentials("ASIA\(round)", expiration: nil))
                } else if let url = try? rotating.current.presign(request, now: Self.now).url {
                    // The access key and the token in one URL always belong together.
                    let id = url.split(separator: "X-Amz-Credential=")[1].prefix { $0 != "%" }
                    let matched = url.contains("X-Amz-Security-Token=token-\(id)&")
                    counts.withLock {
                        $0.signed += 1; $0.mismatched += matched ? 0 : 1
                    }
                }
            }
        }
        #expect(rotating.generation == 200)
        #expect(counts.withLock { $0.signed } == 600)
        #expect(counts.withLock { $0.mismatched } == 0)
    }
}
