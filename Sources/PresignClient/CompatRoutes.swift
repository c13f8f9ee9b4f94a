import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What client P's `PUT /v2/users/me/profile-image` answers: `{"code":"2000","data":{"profileImageUrl"}}`.
public struct ProfileImage: Sendable, Equatable, Codable {
    /// `"2000"`.
    public var code: String
    /// The profile image's URL: `presign.cdnBaseUrl` + its permanent key, or a signed GET without a CDN.
    public var profileImageUrl: String
}

/// What client B's `POST`/`PATCH /api/v1/quests/{questId}/active` answers in its envelope's `data`.
public struct QuestImage: Sendable, Equatable, Codable {
    public var questId: String
    public var imageKey: String
    /// A signed GET URL of the image (10 minutes).
    public var imageUrl: String
}

/// The routes of the server's compatibility profiles (`compat.profiles = clientP,clientB`, see
/// docs/operations.md), for an app moving from its own server's shapes: client P's issue route and
/// profile-image confirmation, client B's envelope (`{success, message, data}`). The upload between
/// them is the same `upload(…with: ticket…)` as for the native routes: the URL as received.
extension PresignClient {
    // MARK: Client P

    /// Client P's `GET /v1/storage/presigned-url?type=&ext=` (served natively, the same answer as
    /// `GET /presigned-url`: its `key` is the one `confirmProfileImage` takes).
    public func clientPUploadURL(type: String, ext: String, path: String = "/v1/storage/presigned-url")
        async throws -> UploadTicket
    {
        try await uploadURL(type: type, ext: ext, chatroomId: nil, path: path)
    }

    /// Client P's confirmation, `PUT /v2/users/me/profile-image {"profileImageUrl": key}` (the ticket's
    /// `key`, `delete/profile/…`): promotes the upload and replaces the caller's profile image (the
    /// previous one is deleted). Its errors carry client P's codes (`4220`, `4040`).
    public func confirmProfileImage(key: String, path: String = "/v2/users/me/profile-image") async throws
        -> ProfileImage
    {
        let (data, _) = try await call("PUT", path, json: ["profileImageUrl": key])
        struct Answer: Decodable {
            struct Inner: Decodable { var profileImageUrl: String }
            var code: String
            var data: Inner
        }
        let a = try decode(Answer.self, data)
        return ProfileImage(code: a.code, profileImageUrl: a.data.profileImageUrl)
    }

    // MARK: Client B

    /// Client B's `POST /api/v1/quests/images/signed-url {"contentType","imageKey"}`: the signed URL from
    /// the envelope's `data.signedUrl` (a null `data` is an error, as in the app). The answer has no
    /// headers or key: the ticket carries `Content-Type: contentType` (signed into the URL) and the
    /// profile's flat key, `imageKey` lower-cased; `confirmKey` is `imageKey`.
    public func clientBUploadURL(
        contentType: String, imageKey: String = UUID().uuidString, path: String = "/api/v1/quests/images/signed-url"
    ) async throws -> UploadTicket {
        let (data, _) = try await call("POST", path, json: ["contentType": contentType, "imageKey": imageKey])
        struct Signed: Decodable { var signedUrl: String }
        let signed = try envelope(Signed.self, data)
        return UploadTicket(
            method: "PUT", url: signed.signedUrl, headers: ["Content-Type": contentType], key: imageKey.lowercased(),
            imageKey: imageKey)
    }

    /// Client B's `POST /api/v1/quests/{questId}/active {"imageKey"}` (the quest's image, confirmed), or
    /// with `edit` its `PATCH` (another key replaces the quest's image, whose object is deleted; the
    /// recorded key again changes nothing).
    public func saveQuestImage(
        questId: String, imageKey: String, edit: Bool = false, pathPrefix: String = "/api/v1/quests"
    )
        async throws -> QuestImage
    {
        let (data, _) = try await call(
            edit ? "PATCH" : "POST", "\(pathPrefix)/\(Self.queryValue(questId))/active", json: ["imageKey": imageKey])
        return try envelope(QuestImage.self, data)
    }

    /// The `data` of client B's envelope `{success, message, data}`; `success: false` or a null `data` is
    /// `invalidResponse`.
    func envelope<T: Decodable>(_ type: T.Type, _ body: Data) throws -> T {
        let e = try decode(ClientBEnvelope<T>.self, body)
        guard e.success, let value = e.data else {
            throw PresignClientError.invalidResponse(
                "the envelope has success \(e.success) and \(e.data == nil ? "no data" : "data"): \(e.message ?? "")")
        }
        return value
    }
}

/// Client B's envelope.
struct ClientBEnvelope<T: Decodable>: Decodable {
    var success: Bool
    var message: String?
    var data: T?
}
