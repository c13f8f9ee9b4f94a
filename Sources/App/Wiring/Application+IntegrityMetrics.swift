import HTTPServer
import Uploads

extension Application {
    /// The integrity counters of confirmations: objects refused for bytes that are not the declared ones,
    /// and the objects (and bytes) read whole to prove or compute a digest.
    static func registerIntegrityMetrics(_ metrics: ServerMetrics, _ confirmer: Confirmer) {
        metrics.register(
            name: "presignd_checksum_refused_total",
            help: "Uploads refused at confirmation because their bytes are not the declared ones (CHECKSUM_MISMATCH)."
        ) { confirmer.checksumRefusals.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_checksum_reads_total",
            help: "Objects read whole from storage at confirmation to prove or compute a digest."
        ) { confirmer.checksumReads.load(ordering: .relaxed) }
        metrics.register(
            name: "presignd_checksum_read_bytes_total",
            help: "Bytes read from storage at confirmation to prove or compute a digest."
        ) { confirmer.checksumReadBytes.load(ordering: .relaxed) }
    }
}
