/// Settings of the container provider beyond its environment variables.
public struct ContainerOptions: Sendable, Equatable {
    /// What `AWS_CONTAINER_CREDENTIALS_RELATIVE_URI` is appended to: the ECS agent's address
    /// `http://169.254.170.2` (tests point it at loopback).
    public var relativeURIBase: String
    /// Time-outs and retries: the agent is local, so 1 s to connect and 2 s in all.
    public var remote: RemoteProviderOptions

    /// Options; every argument defaults to the documented default.
    public init(
        relativeURIBase: String = "http://169.254.170.2",
        remote: RemoteProviderOptions = RemoteProviderOptions(requestTimeoutMs: 2000)
    ) {
        self.relativeURIBase = relativeURIBase
        self.remote = remote
    }
}
