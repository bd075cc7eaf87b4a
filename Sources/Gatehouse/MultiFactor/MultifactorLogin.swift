import Foundation
import GatehouseProtocol

/// Signs in through whatever steps the server's policy asks for, asking the app only for what a person
/// must decide or type: which factor, which code, and to save recovery codes.
///
/// ```swift
/// let login = MultifactorLogin(client: gatehouse) { step in
///     switch step {
///     case .chooseFactor(let factors): return .choose(factors.contains(.totp) ? .totp : factors[0])
///     case .enrollTOTP(let uri, _): showQRCode(uri); return .code(await askForCode())
///     case .verifyCode(let factor, let problem): return .code(await askForCode(factor, problem))
///     case .saveRecoveryCodes(let codes): show(codes); return .done
///     }
/// }
/// let user = try await login.login(username: "ada", password: password)
/// ```
public struct MultifactorLogin: Sendable {
    /// What the flow needs from the person.
    public enum Step: Sendable, Equatable {
        /// Pick one of the enrolled second factors.
        case chooseFactor([SecondFactorKind])
        /// Add the account to an authenticator app (from the `otpauth://` URI, as a QR code, or the Base32
        /// `key` typed by hand), then answer with the code it shows.
        case enrollTOTP(uri: String, key: String?)
        /// Enter the code of `factor`; `problem` says why the last one was refused.
        case verifyCode(factor: SecondFactorKind, problem: String?)
        /// Show the recovery codes once so the person can save them.
        case saveRecoveryCodes([String])
    }

    /// The app's answer to a ``Step``.
    public enum Answer: Sendable, Equatable {
        case choose(SecondFactorKind)
        case code(String)
        /// Go back and choose another factor (on ``Step/verifyCode(factor:problem:)``).
        case chooseAnother
        /// Acknowledge (on ``Step/saveRecoveryCodes(_:)``).
        case done
    }

    public typealias StepHandler = @Sendable (Step) async throws -> Answer

    public let client: GatehouseClient
    let stepHandler: StepHandler

    public init(client: GatehouseClient, stepHandler: @escaping StepHandler) {
        self.client = client
        self.stepHandler = stepHandler
    }

    /// Signs in with a username and password, then any second factor the server asks for.
    ///
    /// - Throws: ``GatehouseError/invalidCredentials``, ``GatehouseError/throttled`` (also after too many
    ///   wrong codes), ``GatehouseError/locked``, ``GatehouseError/flowExpired``, ``GatehouseError/network(_:)``,
    ///   ``GatehouseError/unsupportedStep(_:)`` for a step this helper cannot answer, or what the step handler throws.
    public func login(username: String, password: String) async throws -> UserSession {
        var node = await client.start(loginHint: username)
        var problem: String?
        // A sign-in has a handful of steps; the bound stops a server (or a handler) that loops forever.
        for _ in 0..<24 {
            switch node {
            case .success(let success):
                return success.user
            case .failure(let failure):
                throw failure.cause
            case .error(let error):
                guard error.retry.status == .mfaChallenge || error.retry.status == .mfaEnrollment else { throw error.error }
                problem = error.messages.first?.text
                node = .continue(error.retry)
            case .continue(let step):
                node = try await answer(step, username: username, password: password, problem: problem)
                problem = nil
            }
        }
        throw GatehouseError.unsupportedStep("too many steps")
    }

    private func answer(_ original: ContinueNode, username: String, password: String, problem: String?) async throws -> Node {
        var step = original
        switch step.status {
        case .signIn:
            for collector in step.collectors {
                guard let field = collector.field else { continue }
                if field.field.kind == .password { step[field.key] = password } else if field.key == "username" { step[field.key] = username }
            }
            return await step.next()
        case .mfaRequired:
            let options = step.collectors.compactMap { if case .singleChoice(let choice) = $0 { choice } else { nil } }.first
            guard let options else { throw GatehouseError.unsupportedStep(step.id) }
            guard case .choose(let factor) = try await stepHandler(.chooseFactor(options.options.map { SecondFactorKind(rawValue: $0.value) })) else {
                throw GatehouseError.unsupportedStep(step.id)
            }
            step[options.key] = factor.rawValue
            return await step.next()
        case .mfaChallenge:
            let factor = SecondFactorKind(rawValue: String(step.id.split(separator: ".").last ?? ""))
            switch try await stepHandler(.verifyCode(factor: factor, problem: problem)) {
            case .code(let code):
                step["code"] = code
                return await step.next()
            case .chooseAnother:
                guard let another = step.submits.dropFirst().first else { throw GatehouseError.unsupportedStep(step.id) }
                return await step.next(another)
            default:
                throw GatehouseError.unsupportedStep(step.id)
            }
        case .mfaEnrollment:
            if let qrCode = step.collectors.lazy.compactMap({ if case .qrCode(let code) = $0 { code } else { nil } }).first {
                let key = URLComponents(string: qrCode.content)?.queryItems?.first { $0.name == "secret" }?.value
                guard case .code(let code) = try await stepHandler(.enrollTOTP(uri: qrCode.content, key: key)) else {
                    throw GatehouseError.unsupportedStep(step.id)
                }
                step["code"] = code
                return await step.next()
            }
            let codes = step.collectors.flatMap { collector -> [String] in
                if case .label(let label) = collector { label.text.split(separator: " ").map(String.init) } else { [] }
            }
            _ = try await stepHandler(.saveRecoveryCodes(codes))
            return await step.next()
        default:
            throw GatehouseError.unsupportedStep(step.id)
        }
    }
}
