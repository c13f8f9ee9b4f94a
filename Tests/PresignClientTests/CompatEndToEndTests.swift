import Foundation
import PresignClient
import TestSupport
import Testing

/// The library on the compatibility profiles' routes (`compat.profiles = clientP,clientB`): the real
/// binary, RGW behind a recording proxy (the server's public endpoint), the PUT with the URL as received.
@Suite("PresignClient end to end: the compatibility profiles' routes", .serialized)
struct CompatEndToEndTests {
    static let extra = ["PRESIGN_COMPAT_PROFILES": "clientP,clientB"]

    @Test("client P: /v1/storage/presigned-url, the PUT byte-identical, profile-image confirmed and replaced")
    func clientP() async throws {
        let s3 = try E2E.s3()
        let proxy = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { proxy.close() }
        let (server, _) = try E2E.server(s3, publicPort: proxy.port, extra: Self.extra)
        defer { server.stop() }
        let client = E2E.client(server, user: "77")
        let jpeg = try E2E.fixture("jpeg-baseline-64x48.jpg")

        var answers: [ProfileImage] = []
        for round in 0..<2 {
            let ticket = try await client.clientPUploadURL(type: "PROFILE", ext: "jpeg")
            #expect(ticket.key.hasPrefix("delete/profile/77/"))
            #expect(ticket.url.contains("X-Amz-SignedHeaders=host&"))
            _ = try await client.upload(jpeg, with: ticket, contentType: "image/jpeg")
            let puts = proxy.requests.filter { $0.method == "PUT" }
            try #require(puts.count == round + 1)
            #expect(puts[round].target == E2E.target(of: ticket.url))
            #expect(puts[round].status == 200)
            let answer = try await client.confirmProfileImage(key: ticket.confirmKey)
            #expect(answer.code == "2000")
            let (status, body) = try await E2E.download(answer.profileImageUrl)
            #expect(status == 200)
            #expect(body == jpeg)
            answers.append(answer)
        }
        // The second confirmation replaced the first: one record, the first image's object gone.
        let page = try await client.images(limit: 10)
        #expect(page.items.count == 1)
        #expect(page.items.first.map { answers[1].profileImageUrl.contains($0.key) } == true)
        #expect(try await E2E.download(answers[0].profileImageUrl).0 == 404)

        // An issued key with no object: client P's 404 "4040".
        let unused = try await client.clientPUploadURL(type: "PROFILE", ext: "jpeg")
        do {
            _ = try await client.confirmProfileImage(key: unused.confirmKey)
            Issue.record("a profile image with no object was confirmed")
        } catch let e as PresignClientError {
            #expect(e.status == 404)
            #expect(e.serverCode == "4040")
        }
    }

    @Test("client B: the envelope's signedUrl, the PUT byte-identical with the signed type, quest saved and edited")
    func clientB() async throws {
        let s3 = try E2E.s3()
        let proxy = try RecordingProxy(upstreamHost: "127.0.0.1", upstreamPort: s3.port)
        defer { proxy.close() }
        let (server, dir) = try E2E.server(s3, publicPort: proxy.port, extra: Self.extra)
        defer { server.stop() }
        let client = E2E.client(server, user: "78")
        let jpeg = try E2E.fixture("jpeg-baseline-64x48.jpg")
        let png = try E2E.fixture("png-rgb-33x17.png")
        let file = URL(fileURLWithPath: dir + "/quest.jpg")
        try jpeg.write(to: file)

        let first = try await client.clientBUploadURL(contentType: "image/jpeg")
        #expect(first.headers == ["Content-Type": "image/jpeg"])
        #expect(first.url.contains("X-Amz-SignedHeaders=content-type%3Bhost&"))
        #expect(first.url.contains("X-Amz-Expires=900&"))
        _ = try await client.upload(fileAt: file, with: first)
        let put = try #require(proxy.requests.first { $0.method == "PUT" })
        #expect(put.target == E2E.target(of: first.url))
        #expect(put.target.hasPrefix("/\(s3.bucket)/\(first.key)?"))
        #expect(put.status == 200)
        let saved = try await client.saveQuestImage(questId: "12", imageKey: first.confirmKey)
        #expect(saved.questId == "12")
        #expect(saved.imageKey == first.confirmKey.lowercased())
        #expect(try await E2E.download(saved.imageUrl) == (200, jpeg))

        // An edit with another image: the quest's record moves to it, the first object is deleted.
        let second = try await client.clientBUploadURL(contentType: "image/png")
        _ = try await client.upload(png, with: second)
        let edited = try await client.saveQuestImage(questId: "12", imageKey: second.confirmKey, edit: true)
        #expect(edited.imageKey == second.confirmKey.lowercased())
        #expect(try await E2E.download(edited.imageUrl) == (200, png))
        #expect(try await E2E.download(saved.imageUrl).0 == 404)

        // A key issued but never uploaded: the envelope's 404 IMAGE_NOT_UPLOADED, typed.
        let third = try await client.clientBUploadURL(contentType: "image/jpeg")
        do {
            _ = try await client.saveQuestImage(questId: "13", imageKey: third.confirmKey)
            Issue.record("a quest image with no object was saved")
        } catch let e as PresignClientError {
            #expect(e.status == 404)
            #expect(e.serverCode == "IMAGE_NOT_UPLOADED")
        }
        // A content type the server does not sign for: the envelope's refusal (422), typed.
        do {
            _ = try await client.clientBUploadURL(contentType: "text/html")
            Issue.record("text/html was signed")
        } catch let e as PresignClientError {
            #expect(e.status == 422)
            guard case .server(_, _, let message, _) = e else {
                Issue.record("not a server refusal: \(e)")
                return
            }
            #expect(message?.isEmpty == false)
        }
    }
}
