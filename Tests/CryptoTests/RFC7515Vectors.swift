/// The public keys and signatures of RFC 7515 (JSON Web Signature), appendices A.2 and A.3.
enum RFC7515Vectors {
    /// A.2 and A.3: the JWS signing input shared by both (header differs; the payload is A.1's claims).
    static let rs256SigningInput =
        "eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    /// A.2.1: the RSA key's modulus `n`, base64url.
    static let rsaModulus =
        "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"
    /// A.2.1: the public exponent `e` (65537).
    static let rsaExponent = "AQAB"
    /// A.2.1: the RS256 signature.
    static let rs256Signature =
        "cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw"
    /// A.3: the ES256 signing input.
    static let es256SigningInput =
        "eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    /// A.3.1: the P-256 key's `x`.
    static let ecX = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    /// A.3.1: the P-256 key's `y`.
    static let ecY = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    /// A.3.1: the ES256 signature, r || s.
    static let es256Signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"
    /// A.3.1: the first bytes of r, as the appendix lists them.
    static let es256RPrefix: [UInt8] = [14, 209, 33, 83, 121, 99, 108, 72]
    /// A.3.1: the first bytes of s, as the appendix lists them.
    static let es256SPrefix: [UInt8] = [197, 10, 7, 211, 140, 60, 112, 229]
}
