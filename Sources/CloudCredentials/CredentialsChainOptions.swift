/// The settings of the standard chain's remote providers.
public struct CredentialsChainOptions: Sendable, Equatable {
    /// STS web identity.
    public var webIdentity: WebIdentityOptions
    /// The container agent.
    public var container: ContainerOptions
    /// EC2 instance metadata.
    public var instanceMetadata: InstanceMetadataOptions

    /// Options; every argument defaults to the documented default.
    public init(
        webIdentity: WebIdentityOptions = WebIdentityOptions(), container: ContainerOptions = ContainerOptions(),
        instanceMetadata: InstanceMetadataOptions = InstanceMetadataOptions()
    ) {
        self.webIdentity = webIdentity
        self.container = container
        self.instanceMetadata = instanceMetadata
    }
}
