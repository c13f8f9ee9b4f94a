import Testing
import Uploads

@testable import App

/// The text of `POST /images` refusals (the end-to-end cases are in ImagesFlowTests).
@Suite("Images service messages")
struct ImagesServiceTests {
    @Test("CONTENT_TYPE_NOT_ALLOWED names what storage holds and what the type allows")
    func contentTypeRefusal() {
        #expect(
            UploadError.contentTypeRefusal(
                stored: "image/gif", type: "PROFILE", allowed: ["image/jpeg", "image/png"])
                == #"the object was stored with content type "image/gif"; type PROFILE allows image/jpeg, image/png"#)
        for stored in [nil, ""] as [String?] {
            #expect(
                UploadError.contentTypeRefusal(stored: stored, type: "IMAGE", allowed: ["image/heic"])
                    == "the object was stored without a content type; type IMAGE allows image/heic")
        }
        // A long stored value is cut, so the answer stays small.
        let long = "application/" + String(repeating: "x", count: 500)
        let message = UploadError.contentTypeRefusal(stored: long, type: "FEED", allowed: ["image/png"])
        #expect(message.contains(#""\#(long.prefix(UploadError.maxShownContentType))…""#))
        #expect(!message.contains(String(long.prefix(UploadError.maxShownContentType + 1))))
    }
}
