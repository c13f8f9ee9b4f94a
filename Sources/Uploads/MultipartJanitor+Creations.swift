import ObjectStore
import Records

extension MultipartJanitor {
    /// The keys noted before CreateMultipartUpload more than the abort window ago (a creation finishes
    /// in seconds, so these are creations a crash or a failure cut short): every upload storage holds
    /// under such a key that the ledger does not know is aborted (ListMultipartUploads with the key as
    /// prefix, exact key only), then the note is forgotten. Uploads the ledger knows are its own sweep's.
    /// At most `limit` keys; how many uploads were aborted.
    func sweepCreations(cutoffMs: Int64, limit: Int, fence: PassFence) throws -> Int {
        var aborted = 0
        for noted in try store.notedCreations(notedBeforeMs: cutoffMs, limit: max(1, min(limit, 1000))) {
            guard fence.holds else { break }
            var keyMarker: String?
            var idMarker: String?
            repeat {
                let page = try storage.listMultipartUploads(
                    prefix: noted.objectKey, keyMarker: keyMarker, uploadIdMarker: idMarker, maxUploads: 1000)
                for upload in page.uploads where upload.key == noted.objectKey {
                    guard try store.multipartUpload(objectKey: upload.key, uploadId: upload.uploadId) == nil else {
                        continue
                    }
                    do {
                        try storage.abortMultipartUpload(key: upload.key, uploadId: upload.uploadId)
                    } catch .multipart(.noSuchUpload) {
                        // Gone already.
                    }
                    aborted += 1
                }
                keyMarker = page.nextKeyMarker
                idMarker = page.nextUploadIdMarker
            } while keyMarker != nil
            try store.forgetCreation(objectKey: noted.objectKey)
        }
        return aborted
    }
}
