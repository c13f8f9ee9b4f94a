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

    /// A holder of `id`'s credentials expiring at `expiration`, minimum lifetime 60 s.
    static func holder(_ id: String, expiration: Int64?) throws -> RotatingPresigner {
        RotatingPresigner(
            try Presigner(
                credentials: credentials(id, expiration: expiration), region: "us-east-1", endpoint: endpoint,
                addressing: .path), minimumLifetimeSeconds: 60)
    }

    @Test func itsSigningMethodsClampToTheCredentialsAndRefuseBelowTheMinimum() throws {
        let rotating = try Self.holder("ASIA1", expiration: Self.now + 300)
        let request = PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 600)
        let url = try rotating.presign(request, now: Self.now)
        #expect(url.expiresAt == Self.now + 300 && url.url.contains("&X-Amz-Expires=300&"))
        // The clamped URL is exactly the one the presigner gives for that lifetime.
        var clamped = request
        clamped.expires = 300
        #expect(try rotating.current.presign(clamped, now: Self.now).url == url.url)
        // Long enough left: nothing changes.
        #expect(try rotating.presign(request, now: Self.now - 400).url.contains("&X-Amz-Expires=600&"))
        // A short request is never refused while the credentials outlive it.
        var short = request
        short.expires = 30
        #expect(try rotating.presign(short, now: Self.now + 260).expiresAt == Self.now + 290)
        // 59 s left and 600 asked: refused, and counted.
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 59)) {
            try rotating.presign(request, now: Self.now + 241)
        }
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 0)) {
            try rotating.presign(request, now: Self.now + 301)
        }
        #expect(rotating.refusalCount == 2)
        let part = try rotating.presignUploadPart(
            bucket: "uploads", key: "a.bin", uploadId: "u-1", partNumber: 2, expires: 3600, now: Self.now)
        #expect(part.expiresAt == Self.now + 300 && part.url.contains("X-Amz-Security-Token=token-ASIA1&"))
        let post = try rotating.presignPost(
            PresignPostRequest(bucket: "uploads", key: .exact("a.bin"), contentType: "video/mp4", expires: 900),
            now: Self.now)
        #expect(post.expiresAt == Self.now + 300)
        #expect(post.fields.contains { $0.name == "x-amz-security-token" && $0.value == "token-ASIA1" })
        // Header signing works until the credentials expire, then stops.
        let head = try rotating.signHeaders(method: "HEAD", bucket: "uploads", key: "a.jpg", now: Self.now + 299)
        #expect(head.headers.contains { $0.name == "X-Amz-Security-Token" && $0.value == "token-ASIA1" })
        #expect(throws: SigV4Error.credentialsExpiring(secondsLeft: 0)) {
            try rotating.signHeaders(method: "HEAD", bucket: "uploads", key: "a.jpg", now: Self.now + 300)
        }
    }

    @Test func longTermKeysSignExactlyAsThePresignerDoes() throws {
        let rotating = try Self.holder("AKIA1", expiration: nil)
        let request = PresignRequest(method: "PUT", bucket: "uploads", key: "a.jpg", expires: 604_800)
        #expect(
            try rotating.presign(request, now: Self.now).url == rotating.current.presign(request, now: Self.now).url)
        #expect(try rotating.presign(request, now: 4_102_444_800).expiresAt == 4_102_444_800 + 604_800)
        #expect(rotating.refusalCount == 0)
        // A rotation to temporary credentials starts clamping.
        try rotating.rotate(to: Self.credentials("ASIA9", expiration: Self.now + 120))
        #expect(try rotating.presign(request, now: Self.now).expiresAt == Self.now + 120)
    }
}
