/// A public JSON Web Key (RFC 7517) as published in the JWKS: RSA (`n`, `e`) or EC P-256 (`crv`, `x`, `y`); other
/// key types decode too, with only their common members.
public struct JSONWebKey: Codable, Sendable, Equatable {
    /// The key type (`kty`): `RSA` or `EC`.
    public var keyType: String
    /// The key's id (`kid`), named in the header of the tokens it signed. Optional in a JWK, as `use` and `alg`
    /// are: other providers' key sets leave them out.
    public var keyID: String?
    /// What the key is for (`use`): `sig`.
    public var use: String?
    /// The algorithm it signs with (`alg`): `RS256` or `ES256`.
    public var algorithm: String?
    /// An RSA key's modulus (`n`), base64url.
    public var modulus: String?
    /// An RSA key's public exponent (`e`), base64url.
    public var exponent: String?
    /// An EC key's curve (`crv`): `P-256`.
    public var curve: String?
    /// An EC key's x coordinate, base64url.
    public var x: String?
    /// An EC key's y coordinate, base64url.
    public var y: String?

    /// A public key; RSA keys set `modulus` and `exponent`, EC keys `curve`, `x` and `y`.
    public init(
        keyType: String, keyID: String?, use: String? = "sig", algorithm: String?, modulus: String? = nil, exponent: String? = nil, curve: String? = nil,
        x: String? = nil, y: String? = nil
    ) {
        self.keyType = keyType
        self.keyID = keyID
        self.use = use
        self.algorithm = algorithm
        self.modulus = modulus
        self.exponent = exponent
        self.curve = curve
        self.x = x
        self.y = y
    }

    enum CodingKeys: String, CodingKey {
        case keyType = "kty"
        case keyID = "kid"
        case use
        case algorithm = "alg"
        case modulus = "n"
        case exponent = "e"
        case curve = "crv"
        case x, y
    }
}

/// The document served at `jwks_uri`.
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    /// The public keys, current and recently retired.
    public var keys: [JSONWebKey]

    /// A key set of `keys`.
    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }
}
