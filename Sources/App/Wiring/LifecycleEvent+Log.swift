import Logging
import System
import Uploads

extension LifecycleEvent {
    /// Writes the event as its log line.
    func write(to log: LogSink) {
        switch self {
        case .contentRefused(let type, let reason, let size, let owner):
            log.info(
                "upload refused by the content check", ["type": type, "reason": reason, "size": size, "owner": owner])
        case .replacedObjectKept(let error):
            log.warn("replaced object not deleted yet; it stays in the pending deletions", ["error": error])
        case .janitorStarted(let intervalMs, let batchSize, let deleteObjects):
            log.info(
                "janitor started",
                ["intervalMs": intervalMs, "batchSize": batchSize, "deleteUnconfirmedObjects": deleteObjects])
        case .janitorStopped(let sweeps):
            log.info("janitor stopped", ["sweeps": sweeps])
        case .janitorSwept(let removed, let deleted):
            log.info("janitor swept", ["intentsRemoved": removed, "objectsDeleted": deleted])
        case .janitorPassStopped(let error):
            log.warn("janitor pass stopped", ["error": error, "intentsLeft": "for the next sweep"])
        case .replacedObjectsDeleted(let count):
            log.info("janitor deleted replaced objects", ["objectsDeleted": count])
        case .replacedPassStopped(let error):
            log.warn("janitor pass stopped", ["error": error, "replacedLeft": "for the next sweep"])
        case .multipartPassStopped(let prefix, let error):
            log.warn("multipart janitor pass stopped", ["prefix": prefix, "error": error])
        }
    }
}
