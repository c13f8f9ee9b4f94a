/// STS answers as AWS writes them (shapes from the AssumeRoleWithWebIdentity API reference).
enum STSFixtures {
    /// Temporary credentials for the tests.
    static let accessKeyId = "ASIAIOSFODNN7EXAMPLE"
    /// Their secret (with `/` and `+`, as real ones have).
    static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCY+EXAMPLEKEY"
    /// Their session token (base64 with `/+=`, as real ones are).
    static let sessionToken = "IQoJb3JpZ2luX2VjEHoaCXVzLWVhc3QtMSJHMEUCIQ+/stand+in/token=="

    /// A successful answer with credentials expiring at `expiration`.
    static func success(expiration: String, accessKeyId: String = accessKeyId, token: String = sessionToken) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <AssumeRoleWithWebIdentityResult>
            <SubjectFromWebIdentityToken>system:serviceaccount:uploads:presignd</SubjectFromWebIdentityToken>
            <Audience>sts.amazonaws.com</Audience>
            <AssumedRoleUser>
              <Arn>arn:aws:sts::123456789012:assumed-role/presignd/presignd-session</Arn>
              <AssumedRoleId>AROACLKWSDQRAOEXAMPLE:presignd-session</AssumedRoleId>
            </AssumedRoleUser>
            <Credentials>
              <SessionToken>\(token)</SessionToken>
              <SecretAccessKey>\(secret)</SecretAccessKey>
              <Expiration>\(expiration)</Expiration>
              <AccessKeyId>\(accessKeyId)</AccessKeyId>
            </Credentials>
            <Provider>arn:aws:iam::123456789012:oidc-provider/oidc.eks.us-east-1.amazonaws.com/id/EXAMPLE</Provider>
          </AssumeRoleWithWebIdentityResult>
          <ResponseMetadata>
            <RequestId>ad4156e9-bce1-11e2-82e6-6b6efEXAMPLE</RequestId>
          </ResponseMetadata>
        </AssumeRoleWithWebIdentityResponse>
        """
    }

    /// An error answer.
    static func error(code: String, message: String) -> String {
        """
        <ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">
          <Error>
            <Type>Sender</Type>
            <Code>\(code)</Code>
            <Message>\(message)</Message>
          </Error>
          <RequestId>c6104cbe-af31-11e0-8154-cbc7ccf896c7</RequestId>
        </ErrorResponse>
        """
    }
}
