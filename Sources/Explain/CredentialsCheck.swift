/// What storage said to a request signed with the server's own credentials (a signed HEAD of the
/// bucket), asked by explain mode when a URL matches what the server signs and storage still refused
/// it: the caller performs the request (explain itself does no I/O).
public enum CredentialsCheck: Sendable, Equatable {
    /// Storage accepted the server's credentials.
    case accepted
    /// Storage refused them: its status and error code (`SignatureDoesNotMatch`, `InvalidAccessKeyId`).
    case refused(status: Int, code: String?)
    /// Storage could not be asked (no connection, a timeout); the reason.
    case unavailable(String)
}
