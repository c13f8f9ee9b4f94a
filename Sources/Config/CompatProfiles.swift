import JSON

/// The built-in compatibility profiles, switched on by name in `compat.profiles`: the routes of the two
/// apps' own servers (docs/mission.md's table), written in the same form as an operator's
/// `compat.routes` and read by the same parser.
public enum CompatProfiles {
    /// The profiles' names, in documentation order.
    public static let names = ["clientP", "clientB"]

    /// Client P's confirmation (its issue route, `GET /v1/storage/presigned-url`, is native):
    /// `PUT /v2/users/me/profile-image {"profileImageUrl":"delete/profile/…"}` replaces the user's
    /// profile image and answers `{"code":"2000","data":{"profileImageUrl":…}}`; a missing object (or a
    /// key never issued) is its 404 `"4040"`; a value not under `delete/` its 422 `"4220"`; a signing
    /// failure its 400 `"4001"`; any other error `{"code":"<status>0","message":…}` (`4010`, `4290`,
    /// `4130`, …). These errors are also those of the native issue route while the profile is on
    /// (`ClientPContract.issueErrors`), as its server answers all its routes' errors alike.
    static let clientP = #"""
        [
          {
            "name": "clientP.profileImage",
            "method": "PUT",
            "path": "/v2/users/me/profile-image",
            "operation": "replace",
            "keyField": "profileImageUrl",
            "keyForm": "objectKey",
            "keyPrefix": "delete/",
            "types": ["PROFILE"],
            "slot": "profile",
            "deletePrevious": true,
            "success": {"status": 200, "body": {"code": "2000", "data": {"profileImageUrl": "{url}"}}},
            "errors": {
              "4220": {"status": 422, "body": {"code": "4220", "message": "{message}", "fieldErrors": "{fieldErrors}"}},
              "IMAGE_NOT_UPLOADED": {"status": 404, "body": {"code": "4040", "message": "{message}"}},
              "INTENT_NOT_FOUND": {"status": 404, "body": {"code": "4040", "message": "{message}"}},
              "SIGNING_FAILED": {"status": 400, "body": {"code": "4001", "message": "{message}"}},
              "default": {"body": {"code": "{status}0", "message": "{message}"}}
            }
          }
        ]
        """#

    /// Client B's server: the signed URL in its envelope (900 s, content-type and host signed, the
    /// UUID lower-cased), the quest's image saved with `POST` and edited with `PATCH` on
    /// `/api/v1/quests/{questId}/active` (its read URL signed for 10 minutes); every error `{"success":false,"message":…,"data":null}` with
    /// the HTTP status.
    static let clientB = #"""
        [
          {
            "name": "clientB.signedUrl",
            "method": "POST",
            "path": "/api/v1/quests/images/signed-url",
            "operation": "issueByKey",
            "keyField": "imageKey",
            "keyForm": "uuid",
            "contentTypeField": "contentType",
            "expiresSeconds": 900,
            "success": {"status": 200, "body": {"success": true, "message": "OK", "data": {"signedUrl": "{url}"}}},
            "errors": {"default": {"body": {"success": false, "message": "{message}", "data": null}}}
          },
          {
            "name": "clientB.activate",
            "method": "POST",
            "path": "/api/v1/quests/{questId}/active",
            "operation": "confirm",
            "keyField": "imageKey",
            "keyForm": "uuid",
            "slot": "quest:{questId}",
            "metadata": ["questId"],
            "readUrlExpiresSeconds": 600,
            "success": {"status": 200, "body": {"success": true, "message": "OK",
              "data": {"questId": "{param.questId}", "imageKey": "{imageKey}", "imageUrl": "{url}"}}},
            "errors": {
              "IMAGE_NOT_UPLOADED": {"status": 404, "body": {"success": false, "message": "IMAGE_NOT_UPLOADED", "data": null}},
              "default": {"body": {"success": false, "message": "{message}", "data": null}}
            }
          },
          {
            "name": "clientB.edit",
            "method": "PATCH",
            "path": "/api/v1/quests/{questId}/active",
            "operation": "replace",
            "keyField": "imageKey",
            "keyForm": "uuid",
            "slot": "quest:{questId}",
            "metadata": ["questId"],
            "readUrlExpiresSeconds": 600,
            "success": {"status": 200, "body": {"success": true, "message": "OK",
              "data": {"questId": "{param.questId}", "imageKey": "{imageKey}", "imageUrl": "{url}"}}},
            "errors": {
              "IMAGE_NOT_UPLOADED": {"status": 404, "body": {"success": false, "message": "IMAGE_NOT_UPLOADED", "data": null}},
              "default": {"body": {"success": false, "message": "{message}", "data": null}}
            }
          }
        ]
        """#

    /// The profiles' routes by name, parsed once (a problem in them is a bug: checked by the tests).
    static let parsed: [String: [CompatRouteConfig]] = {
        var result: [String: [CompatRouteConfig]] = [:]
        for (name, text) in [("clientP", clientP), ("clientB", clientB)] {
            var problems: [ConfigProblem] = []
            let routes = CompatRouteParser.routes(
                try? JSONValue(parsing: Array(text.utf8), limits: ConfigBuilder.documentLimits),
                path: "compat.profiles.\(name)", problems: &problems)
            precondition(problems.isEmpty, "built-in compat profile \(name) is invalid: \(problems)")
            result[name] = routes
        }
        return result
    }()

    /// The routes of the profile called `name`, or nil for an unknown name.
    public static func routes(of name: String) -> [CompatRouteConfig]? { parsed[name] }
}
