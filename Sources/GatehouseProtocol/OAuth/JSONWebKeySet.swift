/// A public JSON Web Key (RFC 7517) as published in the JWKS: RSA (`n`, `e`) or EC P-256 (`crv`, `x`, `y`).
public struct JSONWebKey: Codable, Sendable, Equatable {
    public var keyType: String
    public var keyID: String
    public var use: String
    public var algorithm: String
    public var modulus: String?
    public var exponent: String?
    public var curve: String?
    public var x: String?
    public var y: String?

    public init(
        keyType: String, keyID: String, use: String = "sig", algorithm: String, modulus: String? = nil, exponent: String? = nil, curve: String? = nil,
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
    public var keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) {
        self.keys = keys
    }
}
