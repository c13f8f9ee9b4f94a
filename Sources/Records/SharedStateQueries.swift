/// The SQL of leases, shared rate limits and quotas (schema version 8), in both dialects.
struct SharedStateQueries {
    /// The columns of `leases`, in the order the row readers expect.
    static let leaseColumns = "name, holder, token, expires_at_ms, acquired_at_ms"

    /// One lease (?1 name).
    let leaseByName: String
    /// One lease, locked against a takeover until the transaction ends (?1 name).
    let leaseForFence: String
    /// Writes a lease (the lease columns in order).
    let upsertLease: String
    /// Extends a held lease (?1 name, ?2 holder, ?3 token, ?4 until, ?5 now).
    let renewLease: String
    /// Makes a held lease run out now (?1 name, ?2 holder, ?3 token, ?4 now).
    let releaseLease: String

    /// Notes an instance as seen (?1 id, ?2 now).
    let seeInstance: String
    /// Counts the instances seen after ?1.
    let liveInstances: String
    /// Removes instances not seen since ?1.
    let forgetInstances: String
    /// Removes at most ?2 buckets full again at ?1.
    let pruneBuckets: String

    /// An owner's day (?1 owner, ?2 day).
    let usageByDay: String
    /// Adds to an owner's day (?1 owner, ?2 day, ?3 uploads, ?4 bytes).
    let addUsage: String
    /// One reservation (?1 image key): owner, day, bytes.
    let reservationByKey: String
    /// Writes a reservation (?1 image key, ?2 owner, ?3 day, ?4 bytes).
    let upsertReservation: String
    /// Removes a reservation (?1 image key).
    let deleteReservation: String
    /// Removes at most ?2 reservations of days before ?1.
    let pruneReservations: String
    /// Removes at most ?2 usage rows of days before ?1.
    let pruneUsage: String

    /// The statements with placeholder `n` written by `p`; `forShare` ends the fence's SELECT, `greatest`
    /// is the dialect's two-argument max.
    init(_ p: (Int) -> String, forShare: String, greatest: String) {
        let leases = Self.leaseColumns
        leaseByName = "SELECT \(leases) FROM leases WHERE name = \(p(1))"
        leaseForFence = "SELECT \(leases) FROM leases WHERE name = \(p(1))\(forShare)"
        upsertLease = """
            INSERT INTO leases (\(leases)) VALUES (\((1...5).map(p).joined(separator: ", ")))
            ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, token = excluded.token,
            expires_at_ms = excluded.expires_at_ms, acquired_at_ms = excluded.acquired_at_ms
            """
        renewLease = """
            UPDATE leases SET expires_at_ms = \(p(4)) WHERE name = \(p(1)) AND holder = \(p(2)) AND token = \(p(3))
            AND expires_at_ms > \(p(5))
            """
        releaseLease = """
            UPDATE leases SET expires_at_ms = \(p(4)) WHERE name = \(p(1)) AND holder = \(p(2)) AND token = \(p(3))
            AND expires_at_ms > \(p(4))
            """
        seeInstance = """
            INSERT INTO rate_instances (instance_id, seen_at_ms) VALUES (\(p(1)), \(p(2)))
            ON CONFLICT (instance_id) DO UPDATE SET seen_at_ms = \(greatest)(rate_instances.seen_at_ms, excluded.seen_at_ms)
            """
        liveInstances = "SELECT COUNT(*) FROM rate_instances WHERE seen_at_ms > \(p(1))"
        forgetInstances = "DELETE FROM rate_instances WHERE seen_at_ms < \(p(1))"
        pruneBuckets = """
            DELETE FROM rate_buckets WHERE key IN (SELECT key FROM rate_buckets
            WHERE tokens + (\(p(1)) - updated_at_ms) * per_minute / 60000.0 >= burst LIMIT \(p(2)))
            """
        usageByDay = "SELECT uploads, bytes FROM quota_usage WHERE owner_id = \(p(1)) AND day_start_ms = \(p(2))"
        addUsage = """
            INSERT INTO quota_usage (owner_id, day_start_ms, uploads, bytes) VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))
            ON CONFLICT (owner_id, day_start_ms) DO UPDATE SET
            uploads = \(greatest)(0, quota_usage.uploads + excluded.uploads),
            bytes = \(greatest)(0, quota_usage.bytes + excluded.bytes)
            """
        reservationByKey = "SELECT owner_id, day_start_ms, bytes FROM quota_reservations WHERE image_key = \(p(1))"
        upsertReservation = """
            INSERT INTO quota_reservations (image_key, owner_id, day_start_ms, bytes)
            VALUES (\(p(1)), \(p(2)), \(p(3)), \(p(4)))
            ON CONFLICT (image_key) DO UPDATE SET owner_id = excluded.owner_id,
            day_start_ms = excluded.day_start_ms, bytes = excluded.bytes
            """
        deleteReservation = "DELETE FROM quota_reservations WHERE image_key = \(p(1))"
        pruneReservations = """
            DELETE FROM quota_reservations WHERE image_key IN (SELECT image_key FROM quota_reservations
            WHERE day_start_ms < \(p(1)) LIMIT \(p(2)))
            """
        pruneUsage = """
            DELETE FROM quota_usage WHERE (owner_id, day_start_ms) IN (SELECT owner_id, day_start_ms
            FROM quota_usage WHERE day_start_ms < \(p(1)) LIMIT \(p(2)))
            """
    }

    /// SQLite's statements.
    static let sqlite = SharedStateQueries({ "?\($0)" }, forShare: "", greatest: "max")
    /// PostgreSQL's statements.
    static let postgres = SharedStateQueries({ "$\($0)" }, forShare: " FOR SHARE", greatest: "GREATEST")

    /// SQLite: charges one bucket (?1 key, ?2 consumed, ?3 per minute, ?4 burst, ?5 now), answering its
    /// tokens.
    static let sqliteCharge = """
        INSERT INTO rate_buckets (key, tokens, updated_at_ms, per_minute, burst) VALUES (?1, max(-?4, ?4 - ?2), ?5, ?3, ?4)
        ON CONFLICT (key) DO UPDATE SET
        tokens = max(-excluded.burst, min(excluded.burst, tokens + max(0, excluded.updated_at_ms - updated_at_ms)
            * excluded.per_minute / 60000.0) - ?2),
        updated_at_ms = max(updated_at_ms, excluded.updated_at_ms), per_minute = excluded.per_minute,
        burst = excluded.burst
        RETURNING tokens
        """

    /// PostgreSQL: charges every bucket in one statement ($1 keys, $2 consumed, $3 per minute, $4 burst as
    /// arrays, $5 now), answering each key's tokens. A new row is inserted with `burst - consumed`, so the
    /// update reads the consumption back as `excluded.burst - excluded.tokens`.
    static let postgresCharge = """
        INSERT INTO rate_buckets (key, tokens, updated_at_ms, per_minute, burst)
        SELECT u.k, (u.b - u.c)::float8, $5, u.pm, u.b
        FROM unnest($1::text[], $2::bigint[], $3::bigint[], $4::bigint[]) WITH ORDINALITY AS u(k, c, pm, b, n)
        ORDER BY u.n
        ON CONFLICT (key) DO UPDATE SET
        tokens = GREATEST(-excluded.burst::float8, LEAST(excluded.burst::float8, rate_buckets.tokens
            + GREATEST(0, excluded.updated_at_ms - rate_buckets.updated_at_ms)::float8 * excluded.per_minute::float8
            / 60000.0::float8) - (excluded.burst::float8 - excluded.tokens)),
        updated_at_ms = GREATEST(rate_buckets.updated_at_ms, excluded.updated_at_ms),
        per_minute = excluded.per_minute, burst = excluded.burst
        RETURNING key, tokens
        """
}
