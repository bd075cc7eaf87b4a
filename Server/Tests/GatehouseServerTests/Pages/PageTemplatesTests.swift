import GatehouseProtocol
import Testing

@testable import GatehouseDomain
@testable import GatehouseFoundation
@testable import GatehouseServer

/// The hosted pages come from templates: every one parses, and what a page shows of a node is escaped by the
/// template engine, wherever it lands (text, attribute, option), with the markup the pages' scripts and tests expect.
@Suite("Page templates")
struct TemplatesTests {
    @Test("every template is a resource that parses, the pages' and one per message")
    func everyTemplateParses() throws {
        try Templates.requireAll()
        let pages = [
            "layout", "error", "flow", "flow-field", "flow-field-state", "flow-field-errors", "signed-out", "sign-out", "device-confirm",
            "device-confirmed", "device-code", "device-consent", "device-approved", "device-denied", "demo-home", "demo-signed-in",
            "application", "account", "account-deleted", "email-link",
        ]
        for name in pages {
            #expect(Templates.exists(name), "\(name)")
        }
    }

    @Test("a message's subject and body come from the catalog in its language, unescaped; a call spells the code out")
    func messages() throws {
        let english = try MessageCatalog.shipped.get().wording(.english)
        let email = MessageTemplate.signInCode.render(code: "123 456", minutes: 10, service: "Tom & Jerry's", on: .email, in: english)
        #expect(email.subject == "Your sign-in code")
        #expect(
            email.body
                == "123 456 is your Tom & Jerry's sign-in code. It expires in 10 minutes. If you are not signing in, someone else knows your password: change it."
        )
        let call = MessageTemplate.verificationCode.render(code: "42", minutes: 5, service: "Gatehouse", on: .voice, in: english)
        #expect(call.body == "4, 2 is your Gatehouse verification code. It expires in 5 minutes. Again, your code is: 4, 2.")
        let french = MessageTemplate.recoveryCode.render(code: "123456", minutes: 1, service: "Notes", in: try MessageCatalog.shipped.get().wording(.french))
        #expect(french.body.hasPrefix("123456") && french.body.contains("1 minute") && french.body.contains("Notes"), "\(french.body)")
        for language in Language.allCases {
            for template in MessageTemplate.allCases {
                let text = template.render(code: "C", minutes: 1, service: "S", in: try MessageCatalog.shipped.get().wording(language))
                #expect(!text.subject.isEmpty && text.subject != template.subjectKey && text.body != template.bodyKey, "\(language) \(template)")
            }
        }
    }

    @Test("hostile text in a node is escaped in text and attributes; a secret is never sent back")
    func escapesWhatTheNodeSays() {
        let hostile = #"<script>alert("x")</script>'"#
        let node = FlowNode(
            id: FlowStep.credentials.rawValue, name: hostile, description: hostile, category: .signIn,
            fields: [
                FlowField(
                    key: "username", kind: .text, label: hostile, validation: FieldValidation(maxLength: 256, regex: #"[a-z"<>]+"#),
                    defaultValue: hostile, autocomplete: "username"),
                FlowField(key: "password", kind: .password, label: "Password", defaultValue: "do-not-send-back", autocomplete: "current-password"),
            ],
            actions: [FlowAction(id: .submit, kind: .submit, label: hostile), FlowAction(id: .recover, kind: .link, label: "Forgot?", flow: "recovery")],
            messages: [FlowMessage(level: .error, text: hostile), FlowMessage(level: .error, text: "Wrong", field: "password", code: "invalid_credentials")])
        let html = FlowPage.content(node, flowID: #"f"><x"#, csrfToken: "t", action: "/login/flow")
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains(#"f"><x"#))
        #expect(html.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39;"))
        #expect(!html.contains("do-not-send-back"))
        #expect(html.contains(#"<input type="hidden" name="flow" value="f&quot;&gt;&lt;x">"#))
        #expect(html.contains(#"pattern="[a-z&quot;&lt;&gt;]+""#))
        // The field a message is about is marked invalid and described by it; the first node message is the one focused.
        #expect(
            html.contains(
                #"<input type="password" id="password" name="password" aria-describedby="password-error" aria-invalid="true" required autocomplete="current-password">"#
            ))
        #expect(html.contains(#"<p class="error field-error" id="password-error">Wrong</p>"#))
        #expect(html.contains(#"<p class="error" role="alert" id="flow-message">"#))
        #expect(html.contains(#"<button type="submit" name="action" value="recover" class="link" formnovalidate>Forgot?</button>"#))
        #expect(html.contains(#"autocapitalize="none" spellcheck="false" autocomplete="username" maxlength="256""#))
    }

    @Test("choices check the default, and only a single choice is required; the QR node has its live status")
    func choicesAndLiveStatus() {
        let choice = FlowNode(
            id: FlowStep.chooseFactor.rawValue, name: "Verify", description: "Choose", category: .mfaRequired,
            fields: [
                FlowField(
                    key: "factor", kind: .singleChoice, label: "Verify with",
                    options: [FieldOption(value: "totp", label: "App"), FieldOption(value: "email", label: "Email <me>")], defaultValue: "email")
            ],
            actions: [FlowAction(id: .submit, kind: .submit, label: "Continue")])
        let html = FlowPage.content(choice, flowID: "f", csrfToken: "t", action: "/login/flow")
        #expect(html.contains(#"<label class="choice" for="factor-0"><input type="radio" id="factor-0" name="factor" value="totp" required> App</label>"#))
        #expect(
            html.contains(
                #"<label class="choice" for="factor-1"><input type="radio" id="factor-1" name="factor" value="email" checked> Email &lt;me&gt;</label>"#))
        #expect(!html.contains("app-login-status"))
        let app = FlowNode(
            id: FlowStep.appLogin.rawValue, name: "App", description: "Scan", category: .appLogin,
            fields: [FlowField(key: "qr", kind: .qrCode, label: "Scan", defaultValue: "https://id.example.com/authenticator#code")],
            actions: [FlowAction(id: .check, kind: .submit, label: "Continue")])
        let page = FlowPage.content(app, flowID: "abc", csrfToken: "t", action: "/login/flow")
        #expect(page.contains(#"data-events="/login/app-status?flow=abc""#))
        #expect(page.contains("<figure class=\"qr\"><svg"))
    }
}
