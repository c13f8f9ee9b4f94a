extension ConfigLoader {
    /// The text printed by `--help`.
    public static let helpText = """
        Usage: presignd [options]
               presignd healthcheck [options]
               presignd explain URL [--header 'Name: value']... [--method PUT] [--error-xml FILE] [options]
               presignd token --user ID [--ttl 1h] [options]
               presignd notifications setup [--push-endpoint URL] [options]

        Issues S3 presigned upload URLs and keeps the records that follow an upload.

        Options:
          --config PATH    read the JSON config file PATH (default: PRESIGN_CONFIG, else none)
          --host ADDRESS   listen address (overrides server.host / PRESIGN_SERVER_HOST)
          --port PORT      listen port (overrides server.port / PRESIGN_SERVER_PORT)
          --check-config   validate the configuration, print it with secrets redacted, exit
          --version        print the version and exit
          --help, -h       print this help and exit

        presignd healthcheck reads the same configuration, GETs /healthz of that server on
        loopback (server.metricsPort when set, else server.port) and exits 0 when it answers 200,
        1 otherwise: a container HEALTHCHECK that needs no curl.

        presignd explain reads the same configuration and explains why storage refused URL (an
        issued presigned URL as the client sent it): it recomputes what the server signs for the
        URL's own parameters and prints the differences as JSON (re-encoded %2F, dropped or added
        parameters, a changed Content-Type, expiry, clock skew, host or addressing style, credential
        scope). --header gives a header the client sent (repeatable), --method its method (else
        PUT is assumed), --error-xml a file with storage's error answer. No key or signature is
        printed. Exit status: 0 no difference, 1 differences found, 2 usage or configuration.

        presignd token (development) reads the same configuration and prints an HS256 bearer token
        for user ID, signed with auth.hs256Secret (PRESIGN_AUTH_HS256_SECRET[_FILE]) and valid for
        --ttl (digits and s, m, h or d; default 1h, at most 30d), with the claims the server checks
        (auth.jwtUserClaim, auth.jwtIssuer, auth.jwtAudience). Exit status: 0, or 2 without the secret.

        presignd notifications setup reads the same configuration and, on Ceph RGW, creates (or
        updates) the persistent topic events.topicName pushing to --push-endpoint (else
        events.pushEndpoint, e.g. http://presignd:8080/events/rgw) with events.secret as its
        OpaqueData, and the bucket's notification of s3:ObjectCreated:* for each upload prefix of
        the types; it prints what it did and can be run again. Exit status: 0, 1 storage refused,
        2 configuration (no secret, no push endpoint).

        Configuration layers, each overriding the one before:
          built-in defaults < config file < PRESIGN_<SECTION>_<KEY> variables < flags
          e.g. server.maxConnections is PRESIGN_SERVER_MAX_CONNECTIONS.

        Secrets are read only from the environment, or from the file a *_FILE variable names:
          PRESIGN_S3_ACCESS_KEY_ID, PRESIGN_S3_SECRET_ACCESS_KEY, PRESIGN_S3_SESSION_TOKEN
          (else AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN),
          PRESIGN_AUTH_HS256_SECRET, PRESIGN_RECORDS_URL.
          Our PRESIGN_S3_* keys win over AWS_*; the start-up log says so (names only).

        Apps' own routes (off by default): PRESIGN_COMPAT_PROFILES=clientP,clientB, or
          compat.routes in the config file (docs/operations.md, "Compatibility routes").

        Without static keys, the credentials come from the platform at start, the first provider
        of s3.credentialSources that is configured: web identity (AWS_WEB_IDENTITY_TOKEN_FILE,
        AWS_ROLE_ARN), shared files (~/.aws), the container agent (AWS_CONTAINER_CREDENTIALS_*),
        EC2 instance metadata (IMDSv2; AWS_EC2_METADATA_DISABLED=true turns it off). Temporary
        credentials are refreshed before they expire; URLs never outlive them.
        s3.provider (aws, minio, ceph, r2, ncp, gcs, custom) presets endpoint, region, addressing.
        Client P's routes are always path-style; with a session token they make start-up exit 2
        unless presign.temporaryCredentialsWithClientP=warn (or presign.serveClientP=false).

        Exit status: 0 success, 2 configuration problems (all of them are printed; also no
          credentials found at start (no provider configured, no EC2 metadata service answering),
          or client P's routes with a session token),
          1 a part cannot start (records store, listener, TLS certificate, keys, a failing
          credential provider);
          healthcheck: 0 healthy, 1 not (never 2).
        Every key is described in docs/operations.md.
        """
}
