/// The schema migrations, in order, in both SQL dialects (the statements of each dialect in its own
/// file: `SQLiteSchema.swift`, `PostgresSchema.swift`), and the column lists and values both stores use.
///
/// `records` has two unique keys (id, image_key) and one listing index (owner, newest first); a type
/// filter walks the owner's index. There is deliberately no (owner, type, ...) index: ids and keys are
/// random UUIDs, so every index costs about one more dirty page per record in each group commit (dropping
/// it raised SQLite group-commit throughput by 20-30 % here).
///
/// Each store keeps the versions it applied in `schema_version`; `migrate()` applies the missing ones in one
/// transaction. Never edit a released migration: add a new version.
enum Schema {
    /// One step of the schema.
    struct Migration {
        /// The version this step brings the schema to.
        let version: Int
        /// The statements for SQLite.
        let sqlite: [String]
        /// The statements for PostgreSQL.
        let postgres: [String]
    }

    /// Every migration, oldest first: each dialect's statements of one version (`SQLiteSchema`,
    /// `PostgresSchema`: one file per dialect), paired by version. Both list the same versions.
    static let migrations: [Migration] = {
        let postgres = Dictionary(uniqueKeysWithValues: PostgresSchema.steps.map { ($0.version, $0.statements) })
        precondition(
            Set(SQLiteSchema.steps.map(\.version)) == Set(postgres.keys), "both dialects list the same versions")
        return SQLiteSchema.steps.map { step in
            Migration(version: step.version, sqlite: step.statements, postgres: postgres[step.version] ?? [])
        }
    }()

    /// The migrations whose versions are not in `applied`, oldest first: every version is looked up, not
    /// only those above the highest applied one, so versions merged out of order are still applied.
    static func missingMigrations(applied: Set<Int>) -> [Migration] {
        migrations.filter { !applied.contains($0.version) }
    }

    /// The newest version this build knows.
    static var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// The columns of `intents` up to schema version 10 (what version 10's program moves).
    static let intentColumnsV10 =
        "image_key, owner_id, object_key, permanent_key, type, content_type, allowed_content_types, max_bytes, created_at_ms, expires_at_ms, metadata"

    /// The columns of `intents`, in the order the row readers expect: version 10's, then version 11's
    /// declared size and digests.
    static let intentColumns = intentColumnsV10 + ", declared_size, sha256, content_md5"

    /// The columns of `records`, in the order the row readers expect: version 11's, then version 13's
    /// state, rejection and key to publish at.
    static let recordColumns =
        "id, owner_id, image_key, object_key, type, content_type, size, etag, metadata, created_at_ms, detected_type, width, height, sha256, state, state_reason, state_detail, publish_key"

    /// An intent's values in `intentColumns` order.
    static func values(of intent: UploadIntent) throws(RecordsError) -> [SQLValue] {
        [
            .text(intent.imageKey), .text(intent.ownerId), .text(intent.objectKey), .optionalText(intent.permanentKey),
            .text(intent.type), .optionalText(intent.contentType),
            .text(try AllowedContentTypes.encode(intent.allowedContentTypes)), .int(intent.maxBytes),
            .int(intent.createdAtMs), .int(intent.expiresAtMs), .optionalText(intent.metadataJSON),
            .optionalInt(intent.declaredSize), .optionalText(intent.checksumSHA256), .optionalText(intent.contentMD5),
        ]
    }

    /// A record's values in `recordColumns` order.
    static func values(of record: ImageRecord) -> [SQLValue] {
        [
            .text(record.id), .text(record.ownerId), .text(record.imageKey), .text(record.objectKey),
            .text(record.type), .text(record.contentType), .int(record.size), .text(record.etag),
            .text(record.metadataJSON), .int(record.createdAtMs), .optionalText(record.detectedType),
            .optionalInt(record.width), .optionalInt(record.height), .optionalText(record.sha256),
            .text(record.state.rawValue), .optionalText(record.rejectionReason), .optionalText(record.rejectionDetail),
            .optionalText(record.publishKey),
        ]
    }
}
