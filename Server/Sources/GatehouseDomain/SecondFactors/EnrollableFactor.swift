/// What a person can set up as a second factor during sign-in, as the choice reads on the wire (`totp`, `phone`,
/// `email`): a phone number is one factor with two ways to get its codes, ``SecondFactor/sms`` and
/// ``SecondFactor/voice``, chosen after it.
package enum EnrollableFactor: String, Sendable, Codable, CaseIterable {
    case passkey
    case totp
    case phone
    case email

    /// The factors a policy's `enroll` list lets people set up, in this type's order.
    package static func offered(by policy: SignOnPolicy) -> [EnrollableFactor] {
        let enrollable = policy.enrollable
        return allCases.filter { factor in
            switch factor {
            case .passkey: enrollable.contains(.passkey)
            case .totp: enrollable.contains(.totp)
            case .phone: !phoneMethods(in: policy).isEmpty
            case .email: enrollable.contains(.email)
            }
        }
    }

    /// The ways a policy lets a phone number get its codes: text message first, then a call.
    package static func phoneMethods(in policy: SignOnPolicy) -> [MessageChannel] {
        [MessageChannel.sms, .voice].filter { policy.enrollable.contains($0.factor) }
    }

    /// How the choice reads on a node.
    /// The key of the choice's name in the message catalogs.
    package var labelKey: String {
        switch self {
        case .passkey: "enroll.factor.passkey"
        case .totp: "enroll.factor.totp"
        case .phone: "enroll.factor.phone.any"
        case .email: "enroll.factor.email"
        }
    }
}
