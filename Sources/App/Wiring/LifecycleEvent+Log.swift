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
        case .checksumRefused(let type, let algorithm, let declared, let actual, let size, let owner):
            log.info(
                "upload refused: its bytes are not the declared ones",
                [
                    "type": type, "algorithm": algorithm, "declared": declared, "actual": actual, "size": size,
                    "owner": owner,
                ])
        case .scanSettled(let id, let type, let outcome, let reason, let detail):
            log.info(
                "upload scanned",
                ["recordId": id, "type": type, "outcome": outcome, "reason": reason ?? "", "detail": detail ?? ""])
        case .scanRetried(let id, let attempts, let retryInMs, let error):
            log.warn(
                "upload scan gave no verdict; retried later",
                ["recordId": id, "attempts": attempts, "retryInMs": retryInMs, "error": error])
        case .scanObjectKept(let id, let key, let error):
            log.warn("rejected upload's object not deleted yet", ["recordId": id, "key": key, "error": error])
        case .replacedObjectKept(let error):
            log.warn("replaced object not deleted yet; it stays in the pending deletions", ["error": error])
        case .janitorStarted(let intervalMs, let batchSize, let deleteObjects, let holder, let leaseTtlMs):
            log.info(
                "janitor started",
                [
                    "intervalMs": intervalMs, "batchSize": batchSize, "deleteUnconfirmedObjects": deleteObjects,
                    "holder": holder, "leaseTtlMs": leaseTtlMs,
                ])
        case .janitorLeaseAcquired(let holder, let token, let tookOver):
            log.info("janitor lease acquired", ["holder": holder, "token": token, "tookOver": tookOver])
        case .janitorLeaseLost(let holder, let token):
            log.warn("janitor lease lost", ["holder": holder, "token": token, "passes": "stopped"])
        case .janitorLeaseStoreFailed(let error):
            log.warn("janitor lease store call failed", ["error": error, "retry": "at the next renewal tick"])
        case .janitorPassFencedOff(let intentsLeft):
            log.warn("janitor pass fenced off", ["intentsLeft": intentsLeft, "for": "the next holder"])
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
        case .multipartPassStopped(let error):
            log.warn("multipart janitor pass stopped", ["error": error])
        case .multipartAborted(let count):
            log.info("multipart janitor aborted uploads", ["aborted": count])
        case .reconciled(let examined, let recorded, let removed):
            log.info("reconciler swept", ["examined": examined, "recorded": recorded, "removed": removed])
        case .reconcilePassStopped(let error):
            log.warn("reconciler pass stopped", ["error": error])
        case .eventProcessorStarted(let intervalMs, let recordDelayMs):
            log.info("event processor started", ["intervalMs": intervalMs, "recordDelayMs": recordDelayMs])
        case .eventProcessorStopped:
            log.info("event processor stopped")
        case .eventRecorded(let source, let key, let created):
            log.info("store event recorded", ["source": source, "key": key, "created": created])
        case .eventRejected(let source, let key, let reason):
            if let key {
                log.warn("store event not used", ["source": source, "reason": reason, "key": key])
            } else {
                log.warn("store event not used", ["source": source, "reason": reason])
            }
        case .eventRetried(let source, let attempts, let error):
            log.warn("store event retried later", ["source": source, "attempts": attempts, "error": error])
        }
    }
}
