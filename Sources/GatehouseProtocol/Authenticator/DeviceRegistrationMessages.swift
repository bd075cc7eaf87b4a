/// Starts registering a device identity for the account with ``email``.
public struct DeviceRegistrationRequest: Codable, Sendable, Equatable {
    /// The address of the account to bind the device to; a code is sent there.
    public var email: String
    /// Shown to the account's owner and administrators ("Alice's phone").
    public var deviceName: String?

    /// A registration for `email`, naming the device `deviceName` in the account's notices.
    public init(email: String, deviceName: String?) {
        self.email = email
        self.deviceName = deviceName
    }

    enum CodingKeys: String, CodingKey {
        case email
        case deviceName = "device_name"
    }
}

/// A registration waiting for its email to be confirmed. The same answer comes whether or not an account
/// has that address, so registering never tells who has an account.
public struct DeviceRegistrationStarted: Codable, Sendable, Equatable {
    /// The new device identity's id.
    public var identityID: String
    /// The device's bearer secret for every later request of this identity; keep it with the identity.
    public var deviceSecret: String
    /// `code` or `link`: how the email confirms the registration.
    public var verification: String
    /// Seconds until an unconfirmed registration is dropped.
    public var expiresIn: Int64

    /// A started registration.
    public init(identityID: String, deviceSecret: String, verification: String, expiresIn: Int64) {
        self.identityID = identityID
        self.deviceSecret = deviceSecret
        self.verification = verification
        self.expiresIn = expiresIn
    }

    enum CodingKeys: String, CodingKey {
        case verification
        case identityID = "identity_id"
        case deviceSecret = "device_secret"
        case expiresIn = "expires_in"
    }
}

/// The code from the verification email.
public struct DeviceVerificationRequest: Codable, Sendable, Equatable {
    /// The code from the confirmation email.
    public var code: String

    /// A confirmation with `code`.
    public init(code: String) {
        self.code = code
    }
}

/// The identity's state, as the server sees it.
public struct DeviceIdentityStatus: Codable, Sendable, Equatable {
    /// `registration_started`, `verified` (a PIN may be set), `registered` or `blocked`.
    public var state: String
    /// The identity's OPRF public key (VOPRF P-384, x9.63, base64url), known once the email is confirmed:
    /// the device checks every evaluation's proof against it.
    public var oprfPublicKey: String?
    /// The account the identity signs in to, once confirmed.
    public var username: String?
    /// Wrong PINs the identity may still make before it is blocked.
    public var attemptsRemaining: Int?

    /// An identity's status.
    public init(state: String, oprfPublicKey: String?, username: String?, attemptsRemaining: Int?) {
        self.state = state
        self.oprfPublicKey = oprfPublicKey
        self.username = username
        self.attemptsRemaining = attemptsRemaining
    }

    enum CodingKeys: String, CodingKey {
        case state, username
        case oprfPublicKey = "oprf_public_key"
        case attemptsRemaining = "attempts_remaining"
    }
}

/// A blinded PIN to evaluate: RFC 9497's serialized blinded element, base64url.
public struct PINEvaluationRequest: Codable, Sendable, Equatable {
    /// The blinded PIN element (VOPRF P-384, x9.63, base64url); the server never sees the PIN.
    public var blindedElement: String

    /// A request to evaluate `blindedElement`.
    public init(blindedElement: String) {
        self.blindedElement = blindedElement
    }

    enum CodingKeys: String, CodingKey {
        case blindedElement = "blinded_element"
    }
}

/// The server's evaluation of a blinded PIN, with the proof that it used the identity's key.
public struct PINEvaluation: Codable, Sendable, Equatable {
    /// RFC 9497's evaluated element followed by its DLEQ proof, base64url.
    public var evaluation: String
    /// During sign-in: what to sign if the PIN was right (absent at registration).
    public var challenge: String?
    /// Wrong PINs left after this one, if it turns out wrong (absent at registration).
    public var attemptsRemaining: Int?

    /// An evaluation, with the challenge to sign when a sign-in is being approved.
    public init(evaluation: String, challenge: String?, attemptsRemaining: Int?) {
        self.evaluation = evaluation
        self.challenge = challenge
        self.attemptsRemaining = attemptsRemaining
    }

    enum CodingKeys: String, CodingKey {
        case evaluation, challenge
        case attemptsRemaining = "attempts_remaining"
    }
}

/// Completes a registration with the public half of the signing key the PIN protects.
public struct DeviceActivationRequest: Codable, Sendable, Equatable {
    /// ECDSA P-256 public key, x9.63, base64url.
    public var publicKey: String

    /// An activation with `publicKey`.
    public init(publicKey: String) {
        self.publicKey = publicKey
    }

    enum CodingKeys: String, CodingKey {
        case publicKey = "public_key"
    }
}
