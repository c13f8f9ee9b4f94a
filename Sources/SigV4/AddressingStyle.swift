/// Where the bucket name goes in a URL.
public enum AddressingStyle: String, Sendable, CaseIterable {
    /// `https://host/bucket/key`: works with every bucket name and every endpoint; client P needs it.
    case path
    /// `https://bucket.host/key` whenever possible: the bucket is a lower-case DNS name (dotted
    /// only over http, as TLS wildcard certificates do not match dotted names) and the endpoint host
    /// is not an IP address; path-style otherwise (botocore's behaviour).
    case virtual
    /// Virtual-hosted when the bucket is one DNS label (no dots, whatever the scheme) and the
    /// endpoint host is not an IP address; path-style otherwise.
    case auto
}
