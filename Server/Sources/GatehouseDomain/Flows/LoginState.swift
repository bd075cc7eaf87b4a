import GatehouseProtocol

extension FlowStore {
    /// What a login flow remembers between steps: where it is, what it is for (``Journey``, with what only that
    /// journey keeps), who has proved to be signing in, and the second factor in progress.
    package struct LoginState: Codable, Sendable, Equatable {
        package var request: AuthorizationRequest
        /// The node the flow is at.
        package var step: FlowStep
        /// The client's display name, shown on every node.
        package var clientName: String?
        /// The name as typed on the sign-in or recovery node, shown back on later nodes; the account's username once
        /// the account is known.
        package var username: String?
        /// What the flow is for.
        package var journey: Journey
        /// The last password on the sign-in node was refused for too many failures: the node offers unlocking.
        package var lockedOut = false
        /// Who is signing in, once a password, a recovery code, a new account or the app proved it.
        package var account: ProvenAccount?
        /// The second factor being chosen, checked or set up.
        package var secondFactor = SecondFactorProgress()
        /// A sign-in sent to another identity provider, and an identity waiting to be linked.
        package var federation = FederationProgress()
        /// What a third-party client asks the person to allow, once the flow reaches its consent node.
        package var consent: PendingConsent?
        /// The flow's id (not part of the stored state): the providers' URLs name it.
        package var id: String?
        /// The version of the stored flow this state was read at (a column, not part of the stored state): a write
        /// lands only on that version, so two submissions of one step cannot both move the flow on.
        package var version = 0

        /// A flow of `journey` at `step`.
        package init(
            request: AuthorizationRequest, step: FlowStep, journey: Journey = .signIn(appLogin: nil), username: String? = nil, clientName: String? = nil
        ) {
            self.request = request
            self.step = step
            self.journey = journey
            self.username = username
            self.clientName = clientName
        }

        package enum CodingKeys: String, CodingKey {
            case request, step, clientName, username, journey, lockedOut, account, secondFactor, federation, consent
        }

        /// The account a recovery, unlock or email sign-in is for, when the identifier named one (never shown).
        package var candidateID: String? {
            switch journey {
            case .recovery(let candidateID, _), .unlock(let candidateID), .emailSignIn(_, let candidateID): candidateID
            case .signIn, .enrollment, .registration: nil
            }
        }

        /// The `amr` values earned so far.
        package var methods: [String] { account?.methods ?? [] }

        /// The same flow back at the sign-in node with everything else forgotten (a journey cancelled, an account
        /// unlocked), still at the version it was read at so that writing it is checked like any other submission.
        package func backToSignIn(username: String?) -> Self {
            var fresh = Self(request: request, step: .credentials, username: username, clientName: clientName)
            fresh.version = version
            return fresh
        }

        /// The state after `factor` was verified: its `amr` value and `mfa` added.
        package func adding(_ factor: SecondFactor) -> Self {
            adding(methods: [factor.methodReference])
        }

        /// The state after a second factor whose `amr` values are `methods` was verified; `mfa` is added too.
        package func adding(methods: [String]) -> Self {
            var copy = self
            for method in methods + ["mfa"] where copy.account?.methods.contains(method) == false {
                copy.account?.methods.append(method)
            }
            return copy
        }
    }

    /// An account that has proved to be the one signing in.
    package struct ProvenAccount: Codable, Sendable, Equatable {
        package var userID: String
        /// The `amr` values earned so far (`pwd`, then `otp` and `mfa`, …).
        package var methods: [String]
        /// The password was set in this flow, or its expiry warning was seen: no expiry check before finishing.
        package var passwordSettled = false

        package init(userID: String, methods: [String], passwordSettled: Bool = false) {
            self.userID = userID
            self.methods = methods
            self.passwordSettled = passwordSettled
        }
    }

    /// A second factor in progress: the choices, the code sent, an authenticator being set up.
    package struct SecondFactorProgress: Codable, Sendable, Equatable {
        /// The second factors the person may choose from.
        package var factors: [SecondFactor] = []
        /// Where the last code of this flow went, masked for the node's text.
        package var sentTo: String?
        /// After a delivered code proves it's them, enroll a factor: policy requires one and the account has none.
        package var enrollAfterCode = false
        /// Setting up a factor was offered, not required: the person may answer "Not now".
        package var enrollmentOptional = false
        /// A phone number or email address being set up: how its code goes, and where once typed.
        package var enrolling: PendingContact?
        /// A TOTP secret being set up, sealed under the server secret until a code confirms it.
        package var pendingSecret: String?
        /// Recovery codes to show once after a change, sealed under the server secret.
        package var recoveryCodesToShow: String?
        /// A passkey ceremony under way: its challenge (single use, renewed after a failed attempt) and the options
        /// the node hands the browser.
        package var passkey: PasskeyCeremony?
        /// A push sent to an authenticator app, waiting for its approval.
        package var push: PendingPush?
    }
}

/// A sign-in push waiting in the authenticator app: its session, the number the node shows, and where it went.
package struct PendingPush: Codable, Sendable, Equatable {
    package var sessionID: String
    package var number: Int
    /// The device's name, as registered, to say where the push went.
    package var deviceName: String?
    /// When it was sent: another is sent only after the code resend delay.
    package var sentAt: Int64
    /// For a push instead of the password: the sign-in node to go back to.
    package var returnStep: FlowStep?

    package init(sessionID: String, number: Int, deviceName: String?, sentAt: Int64, returnStep: FlowStep? = nil) {
        self.sessionID = sessionID
        self.number = number
        self.deviceName = deviceName
        self.sentAt = sentAt
        self.returnStep = returnStep
    }
}

/// A WebAuthn ceremony a flow has started.
package struct PasskeyCeremony: Codable, Sendable, Equatable {
    /// The challenge, base64url; it lives as long as the flow, and a failed attempt replaces it.
    package var challenge: String
    /// The options JSON the node carries.
    package var options: String

    package init(challenge: String, options: String) {
        self.challenge = challenge
        self.options = options
    }
}

/// A phone number or an email address being set up as a second factor.
package struct PendingContact: Codable, Sendable, Equatable {
    /// How its code is sent: ``MessageChannel/sms`` or ``MessageChannel/voice`` for a phone, ``MessageChannel/email``.
    package var channel: MessageChannel
    /// The E.164 number or the address, once given; the code went there.
    package var address: String?

    package init(channel: MessageChannel, address: String? = nil) {
        self.channel = channel
        self.address = address
    }
}
