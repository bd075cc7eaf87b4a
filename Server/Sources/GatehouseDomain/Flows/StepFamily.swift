import GatehouseProtocol

/// The steps by the part of the flow that draws them (``LoginFlow/node(for:messages:)``): each family's node builder
/// switches over its own steps only, with no `default:`, so a step added to a family does not compile until its
/// node is drawn, and a step added to ``FlowStep`` does not compile until it has a family.
package enum StepFamily: Sendable, Equatable {
    case signIn(SignIn)
    case emailSignIn(EmailSignIn)
    case secondFactor(SecondFactor)
    case passkey(Passkey)
    case factorEnrollment(FactorEnrollment)
    case registration(Registration)
    case recovery(Recovery)
    case password(Password)
    case linking(Linking)
    case enrollmentChoice
    case appLogin
    case consent
    /// Approving a push in the authenticator app, with the number the node shows.
    case push
    /// Signing in by a push to the named account's authenticator app instead of the password.
    case pushSignIn

    /// Username and password, together or one after the other.
    package enum SignIn: Sendable, Equatable { case credentials, identify, password }
    /// Signing in with a code sent by email: the address, then its code.
    package enum EmailSignIn: Sendable, Equatable { case address, code }
    /// Choosing and answering a second factor, setting up an authenticator app, and the recovery codes.
    package enum SecondFactor: Sendable, Equatable { case chooseFactor, totp, recoveryCode, enrollTOTP, recoveryCodes, emailCode, smsCode, voiceCode }
    /// Using or creating a passkey as the second factor.
    package enum Passkey: Sendable, Equatable { case passkey, enrollPasskey }
    /// Setting up a phone or an email address for codes, or choosing what to set up.
    package enum FactorEnrollment: Sendable, Equatable { case enrollOffer, enrollMethod, enrollPhone, enrollPhoneCode, enrollEmail, enrollEmailCode }
    /// Creating an account and confirming its email address and phone number.
    package enum Registration: Sendable, Equatable { case register, verifyEmail, verifyPhone }
    /// Recovering a forgotten password, and unlocking a locked account.
    package enum Recovery: Sendable, Equatable { case recoveryIdentify, recoveryChoose, resetCode, unlockCode }
    /// A new password: after recovery, or because the old one expires.
    package enum Password: Sendable, Equatable { case recoveryPassword, passwordWarning, passwordExpired }
    /// Proving an existing account to link another provider's identity to it.
    package enum Linking: Sendable, Equatable { case linkAccount, linkCode }
}

extension FlowStep {
    /// The family that draws this step's node.
    package var family: StepFamily {
        switch self {
        case .credentials: .signIn(.credentials)
        case .identify: .signIn(.identify)
        case .password: .signIn(.password)
        case .emailSignIn: .emailSignIn(.address)
        case .emailSignInCode: .emailSignIn(.code)
        case .linkAccount: .linking(.linkAccount)
        case .linkCode: .linking(.linkCode)
        case .chooseFactor: .secondFactor(.chooseFactor)
        case .passkey: .passkey(.passkey)
        case .totp: .secondFactor(.totp)
        case .recoveryCode: .secondFactor(.recoveryCode)
        case .enrollOffer: .factorEnrollment(.enrollOffer)
        case .enrollTOTP: .secondFactor(.enrollTOTP)
        case .enrollPasskey: .passkey(.enrollPasskey)
        case .enrollMethod: .factorEnrollment(.enrollMethod)
        case .enrollPhone: .factorEnrollment(.enrollPhone)
        case .enrollPhoneCode: .factorEnrollment(.enrollPhoneCode)
        case .enrollEmail: .factorEnrollment(.enrollEmail)
        case .enrollEmailCode: .factorEnrollment(.enrollEmailCode)
        case .recoveryCodes: .secondFactor(.recoveryCodes)
        case .emailCode: .secondFactor(.emailCode)
        case .smsCode: .secondFactor(.smsCode)
        case .voiceCode: .secondFactor(.voiceCode)
        case .register: .registration(.register)
        case .verifyEmail: .registration(.verifyEmail)
        case .verifyPhone: .registration(.verifyPhone)
        case .recoveryIdentify: .recovery(.recoveryIdentify)
        case .recoveryChoose: .recovery(.recoveryChoose)
        case .resetCode: .recovery(.resetCode)
        case .recoveryPassword: .password(.recoveryPassword)
        case .unlockCode: .recovery(.unlockCode)
        case .passwordWarning: .password(.passwordWarning)
        case .passwordExpired: .password(.passwordExpired)
        case .enrollChoose: .enrollmentChoice
        case .appLogin: .appLogin
        case .consent: .consent
        case .push: .push
        case .pushSignIn: .pushSignIn
        }
    }
}
