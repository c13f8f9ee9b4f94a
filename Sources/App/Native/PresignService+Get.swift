import HTTPServer
import Uploads

extension PresignService {
    // MARK: - GET /presigned-url?type=&ext=[&chatroomId=][&size=&checksumSHA256=&contentMD5=]  (client P)

    /// Parses the query, then signs a path-style PUT for a new key of the type (and the declared size and
    /// the digests storage checks, when declared): the answer, to be given once its intent is stored.
    func issueForQuery(_ req: Request, caller: Caller) throws(APIError) -> Pending<Response> {
        var typeName: String?
        var ext: String?
        var chatroomId: String?
        var declared = DeclaredInput.none
        let wellFormed = req.forEachQueryItem { n, v in
            switch n {
            case "type": typeName = v
            case "ext": ext = v
            case "chatroomId": chatroomId = v
            default: _ = DeclaredFields.take(n, v, into: &declared)
            }
        }
        guard wellFormed else { throw .malformedQuery }
        do throws(UploadError) {
            let upload = try issuer.catalog.checkNew(
                typeName: typeName, ext: ext, chatroomId: chatroomId, declared: declared)
            // HEAD answers GET's headers without the URL, so it records no intent.
            let issued = try issuer.issue(
                upload, owner: caller.userId, signing: .pathStyle, recordsIntent: req.head.method != .HEAD)
            return issued.map(PresignService.issued)
        } catch {
            throw APIError(error)
        }
    }
}
