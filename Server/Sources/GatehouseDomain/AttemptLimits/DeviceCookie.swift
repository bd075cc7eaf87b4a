import Crypto
import Foundation
import GatehouseFoundation
import GatehouseProtocol

/// The device cookie of OWASP's "slow down online guessing attacks with device cookies": a browser (or an app,
/// through the flow API's `device_tokens`) that signed in to an account gets a signed token naming the account.
/// Wrong passwords with it are counted per token, not per account, so someone who blocks an account's name with
/// wrong passwords does not block its owner's own browser or app.
package struct DeviceCookie: Sendable {
    /// Signs the tokens; derived from the server secret, so every node accepts every node's tokens.
    package let key: SymmetricKey

    package init(secret: ServerSecret) {
        key = SymmetricKey(data: SecretBox(serverSecret: secret.bytes, purpose: "device cookies v1").derivedBytes("signing"))
    }

    /// What a valid token says.
    package struct Claim: Sendable, Equatable {
        /// The account the browser signed in to.
        package let userID: String
        /// The token's own random part: its wrong passwords are counted under it.
        package let nonce: String
    }

    /// A new token for a browser that just signed in as `userID`.
    package func issue(userID: String) -> String {
        let body = Base64URL.encode(Data(userID.utf8)) + "." + SecureRandom.token()
        return body + "." + signature(of: body)
    }

    /// The claim of `value`, or `nil` when it is not a token this server signed.
    package func verify(_ value: String?) -> Claim? {
        guard let value, value.utf8.count <= Self.maximumLength else { return nil }
        let parts = value.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let body = parts[0] + "." + parts[1]
        guard ConstantTime.equals(signature(of: String(body)), String(parts[2])),
            let user = Base64URL.decode(String(parts[0])), let userID = String(data: Data(user), encoding: .utf8)
        else { return nil }
        return Claim(userID: userID, nonce: String(parts[1]))
    }

    /// The valid claims among `values` (an app may hold tokens for several accounts), at most ``maximumPresented``;
    /// tokens this server did not sign are ignored.
    package func verify(all values: [String]) -> [Claim] {
        values.prefix(Self.maximumPresented).compactMap { verify($0) }
    }

    /// How many tokens one submission may present, and how long one may be.
    package static let maximumPresented = 8
    package static let maximumLength = 512

    private func signature(of body: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(body.utf8), using: key)))
    }
}

extension [DeviceCookie.Claim] {
    /// The claim that names `userID`, if one does.
    package func naming(_ userID: String?) -> DeviceCookie.Claim? {
        guard let userID else { return nil }
        return first { $0.userID == userID }
    }
}
