import Foundation
import Gatehouse
import QRCode

/// Walks any flow in the terminal: one prompt per field, hidden input for secrets, numbered choices,
/// links offered as options. Values given on the command line are filled in without asking.
struct TerminalFlow {
    let client: GatehouseClient
    var kind: FlowKind = .login
    let username: String?
    let password: String?
    /// Assurances to ask for (`acr_values`), such as a second factor whatever the policy.
    var acrValues: [String]? = nil
    /// Sign in with a code sent to this address instead of a password (`gatehouse login --email`).
    var email: String? = nil
    /// Without a person at the keyboard (the password came from standard input), an error ends the run.
    var interactive: Bool { password == nil }
    static let maximumRetries = 5

    /// The person chose another identity provider: the flow starts again with a redirect URI the terminal can receive
    /// on (a `LoopbackRedirectListener`), in ``SignInOptions``.
    struct ProviderChosen: Error {
        let providerID: String
    }

    /// Walks the flow from `first` (a new flow of ``kind`` when `nil`) to its end.
    func run(from first: Node? = nil) async throws -> SuccessNode {
        var node: Node
        if let first { node = first } else { node = await client.start(kind, loginHint: username, acrValues: acrValues) }
        var retries = 0
        var emailChosen = false
        var emailGiven = false
        while true {
            switch node {
            case .continue(var step):
                if let email, !emailGiven, step.step == .emailSignIn {
                    // The address from the command line, once: a refusal comes back as the node to answer by hand.
                    emailGiven = true
                    step["email"] = email
                    node = await step.next()
                    continue
                }
                if email != nil, !emailChosen, let action = step.submit(.emailCode) {
                    // Once: "Use a password instead" comes back to the sign-in node, which then asks as usual.
                    emailChosen = true
                    node = await step.next(action)
                    continue
                }
                if email != nil, !emailChosen, [FlowStep.credentials, .identify].contains(step.step) {
                    throw CommandError(Terminal.words("cli.no_email_sign_in"))
                }
                node = try await answer(step)
            case .error(let error):
                retries += 1
                guard interactive, retries < Self.maximumRetries else { throw error.error }
                Terminal.say("✗ \(error.message)")
                node = .continue(error.retry)
            case .failure(let failure):
                throw failure.cause
            case .success(let success):
                return success
            }
        }
    }

    private func answer(_ original: ContinueNode) async throws -> Node {
        var step = original
        Terminal.say("\n\(step.name)\n\(step.description)")
        for message in step.messages { Terminal.say("  \(message.level == .error ? "✗" : "•") \(message.text)") }
        // Text to read comes before any choice: a consent node's scopes are what Allow or Deny answers.
        for case .label(let label) in step.collectors { Terminal.say(label.text) }
        // Other actions first (another method, resend, skip, unlock): choosing one skips the fields. Links to
        // other journeys are left out: the terminal has a command for each (`register`, `reset-password`), and so
        // is "Sign in with the app" (`gatehouse authenticator sign-in`).
        let others = step.submits.dropFirst().filter { $0.id != "app" }
        // Another identity provider opens a browser, whose answer comes back to a port of this machine.
        let providers = step.identityProviders
        if interactive, !others.isEmpty || !providers.isEmpty {
            let options =
                [step.submit?.label ?? Terminal.words("cli.continue")] + others.map(\.label)
                + providers.map { Terminal.words("cli.in_browser", ["label": $0.label]) }
            if let picked = try choose(Terminal.words("cli.what_next"), options, several: false).first, picked > 0 {
                guard picked <= others.count else { throw ProviderChosen(providerID: providers[picked - 1 - others.count].providerID) }
                return await step.next(others[picked - 1])
            }
        }
        if step.collectors.contains(where: { if case .passkey = $0 { true } else { false } }) {
            // A passkey lives in a browser, an OS or a security key the terminal cannot reach: take another way when
            // the node offers one.
            Terminal.say(Terminal.words("cli.passkey_needed"))
            guard let other = [FlowActionID.choose, .skip, .change].lazy.compactMap(step.submit).first else {
                throw CommandError(Terminal.words("cli.passkey_only"))
            }
            Terminal.say(Terminal.words("cli.other_way", ["label": other.label]))
            return await step.next(other)
        }
        for index in step.collectors.indices {
            switch step.collectors[index] {
            case .label:
                continue
            case .qrCode(let code):
                Terminal.say(code.label)
                if let symbol = try? QRCode(encoding: code.content) {
                    Terminal.say(symbol.terminalText(colored: isatty(STDERR_FILENO) == 1))
                }
                Terminal.say(code.content)
            case .text(let text):
                if text.key == "username", let username {
                    step[text.key] = username

                } else {
                    let entered = try Terminal.ask(
                        text.value.isEmpty
                            ? Self.prompt(text.label) : Terminal.question("cli.prompt_suggested", ["label": text.label, "suggestion": text.value]))
                    if !entered.isEmpty || text.value.isEmpty { step[text.key] = entered }
                }
            case .password(let secret) where secret.field.autocomplete == "new-password":
                step[secret.key] = try password ?? askNewPassword(secret.label)
            case .password(let secret):
                step[secret.key] = try password ?? Terminal.askSecret(Self.prompt(secret.label))
            case .phoneNumber(let phone):
                let entered = try Terminal.ask(Self.prompt(phone.label))
                if !entered.isEmpty || phone.isRequired { step[phone.key] = entered }
            case .oneTimeCode(let code):
                step[code.key] = try Terminal.askSecret(Self.prompt(code.label))
            case .singleChoice(let choice):
                step[choice.key] = try choose(choice.label, choice.options.map(\.label), several: false).map { choice.options[$0].value }.first
            case .multipleChoice(let choice):
                step[choice.key] = try choose(choice.label, choice.options.map(\.label), several: true)
                    .map { choice.options[$0].value }.joined(separator: ",")
            case .submit, .flowLink, .passkey, .idp:
                continue
            }
        }
        return await step.next()
    }

    /// Asks twice for a new password, so a typo in hidden input does not lock the person out.
    private func askNewPassword(_ label: String) throws -> String {
        for _ in 0..<Self.maximumRetries {
            let first = try Terminal.askSecret(Self.prompt(label))
            if try Terminal.askSecret(Terminal.question("cli.repeat_password")) == first { return first }
            Terminal.say("✗ " + Terminal.words("cli.entries_differ"))
        }
        throw CommandError(Terminal.words("cli.entries_never_matched"))
    }

    /// Asks for one (or several, comma-separated) of `options` by number; returns their indices.
    private func choose(_ question: String, _ options: [String], several: Bool) throws -> [Int] {
        Terminal.say(question)
        for (number, option) in options.enumerated() { Terminal.say("  \(number + 1)) \(option)") }
        while true {
            let answer = try Terminal.ask(Terminal.question(several ? "cli.numbers" : "cli.number"))
            let picked = answer.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
            if !picked.isEmpty, picked.allSatisfy({ $0.map { (1...options.count).contains($0) } ?? false }), several || picked.count == 1 {
                return picked.compactMap { $0.map { $0 - 1 } }
            }
            Terminal.say(Terminal.words(several ? "cli.pick_numbers" : "cli.pick_number", ["count": "\(options.count)"]))
        }
    }

    /// The question for a field labelled `label`, in the terminal's language ("Password: ", "パスワード： ").
    private static func prompt(_ label: String) -> String {
        Terminal.question("cli.prompt", ["label": label])
    }
}
