import Config
import Records
import Testing
import UploadsTestSupport

@testable import Uploads

/// Which keys count as fresh (`UploadIntent.freshKey`): those holding the full UUID just drawn.
@Suite struct IssuerFreshKeyTests {
    /// A type whose upload keys follow `template`.
    static func type(_ template: String) throws -> UploadType {
        try UploadType(
            config: UploadTypeConfig(
                name: "T", extensions: ["jpg"], contentTypes: ["image/jpeg"], keyTemplate: template, maxBytes: 1))
    }

    @Test func aKeyIsFreshWhenItsTemplateHoldsTheNewUUID() throws {
        let uuid = "0b7e6a57-2c1b-4c2e-9d6f-1f2e3d4c5b6a"
        #expect(Issuer.makesFreshKey(try Self.type("delete/profile/{userId}/{uuid}_{epochMillis}.{ext}"), uuid: uuid))
        #expect(Issuer.makesFreshKey(try Self.type("{imageKey}"), uuid: uuid))
        // A template without {uuid}: one key per user, issued again and again.
        #expect(!Issuer.makesFreshKey(try Self.type("profile/{userId}/avatar.{ext}"), uuid: uuid))
        // A short stand-in of a test's UUID source is never taken for 122 random bits.
        #expect(!Issuer.makesFreshKey(try Self.type("profile/{uuid}.{ext}"), uuid: "u"))
    }

    @Test func aBrowserPlanAndItsIntentsCarryTheFlag() throws {
        let h = try LifecycleHarness(sink: RecordingIntentSink())
        let object = try h.issuer.plan(
            ObjectRequest(
                filename: "a.png", mediaType: "image/png", typeName: "IMAGE", chatroomId: nil, metadataJSON: nil),
            owner: "7")
        #expect(object.freshKey)
        let put = h.issuer.intent(of: object, owner: "7", imageKey: object.key, nowMs: 1, lifetimeMs: 1000)
        #expect(put.freshKey)
        let pair = h.issuer.intent(
            of: object, owner: "7", imageKey: UploadRef.pairKey(key: object.key, uploadId: "upload-1"), nowMs: 1,
            lifetimeMs: 1)
        #expect(pair.freshKey, "a multipart upload's pair key holds the fresh key")
        let other = h.issuer.intent(of: object, owner: "7", imageKey: "0b7e6a57", nowMs: 1, lifetimeMs: 1000)
        #expect(!other.freshKey)
    }
}
