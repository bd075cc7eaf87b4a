import GatehouseProtocol
import HTTPTypes
import Hummingbird
import QRCode

/// Renders any flow node as an HTML form: the browser's rendering of what apps receive as JSON.
///
/// Labelled fields with `autocomplete` hints so password managers and one-time-code autofill work, the
/// server's rules as HTML constraints, a hidden CSRF token, and messages announced to screen readers.
enum FlowPage {
    static func render(_ node: FlowNode, flowID: String, csrfToken: String, action: String, status: HTTPResponse.Status = .ok) -> Response {
        let nodeMessages = node.messages.filter { $0.field == nil }.enumerated().map { index, message in
            let id = index == 0 ? #" id="flow-message""# : ""
            return #"<p class="\#(message.level == .error ? "error" : "info")" role="alert"\#(id)>\#(HTML.escape(message.text))</p>"#
        }
        let focus =
            node.fields.first { field in
                !field.isDisplayOnly && (field.defaultValue ?? "").isEmpty
            }?.key ?? (node.messages.isEmpty ? nil : node.fields.first { !$0.isDisplayOnly }?.key)
        let fields = node.fields.map { field in
            let messages = node.messages.filter { $0.field == field.key }
            return markup(for: field, messages: messages, autofocus: field.key == focus)
        }
        let usesPasskey = node.fields.contains { $0.kind == .passkeyCreate || $0.kind == .passkeyGet }
        // The sign-in node has a passkey action beside the password; a passkey step's own button is its main action.
        let passkeyButton = node.action(.passkey)?.id ?? node.primaryAction?.id
        let buttons = node.actions.map { action in
            // Another identity provider: a plain link to its start, which works without JavaScript.
            if action.kind == .idp, let url = action.url {
                let icon = action.icon.map { #"<img src="\#(HTML.escape($0))" alt="" width="20" height="20"> "# } ?? ""
                return #"<a class="button idp" href="\#(HTML.escape(url))" data-idp="\#(HTML.escape(action.id))">\#(icon)\#(HTML.escape(action.label))</a>"#
            }
            // Only the main action submits the fields; the others (links, resend, another method) skip the browser's checks.
            var style =
                action.kind == .link ? #" class="link" formnovalidate"# : action.id == node.primaryAction?.id ? "" : #" class="secondary" formnovalidate"#
            // A passkey's button needs the page's script: hidden until the script shows it.
            if usesPasskey, action.id == passkeyButton { style += " hidden data-passkey" }
            return #"<button type="submit" name="action" value="\#(HTML.escape(action.id))"\#(style)>\#(HTML.escape(action.label))</button>"#
        }
        let body = """
            <h1>\(HTML.escape(node.name))</h1>
            <p class="hint">\(HTML.escape(node.description))</p>
            \(nodeMessages.joined(separator: "\n"))
            <form method="post" action="\(HTML.escape(action))" data-node="\(HTML.escape(node.id))">
            <input type="hidden" name="flow" value="\(HTML.escape(flowID))">
            <input type="hidden" name="csrf_token" value="\(HTML.escape(csrfToken))">
            \(fields.joined(separator: "\n"))
            \(buttons.joined(separator: "\n"))
            </form>
            \(liveStatus(for: node, flowID: flowID))
            \(usesPasskey ? #"<script src="/assets/passkey.js" defer></script>"# : "")
            """
        return PageRenderer.page(title: node.name, body: body, status: status)
    }

    /// The QR sign-in node follows its status live (``AppLoginStatusStream``); without JavaScript its button does the same.
    private static func liveStatus(for node: FlowNode, flowID: String) -> String {
        guard node.id == FlowStep.appLogin.rawValue else { return "" }
        // Flow ids are base64url, safe in a query as they are.
        let events = HTML.escape("/login/app-status?flow=\(flowID)")
        return
            #"<p class="hint" id="app-login-status" role="status" aria-live="polite" data-events="\#(events)"></p><script src="/assets/app-login.js" defer></script>"#
    }

    /// The submitted values of `node`'s fields: every checked box of a multiple choice, one value otherwise.
    static func values(of node: FlowNode, in form: FormParameters) -> [String: FieldValue] {
        var values: [String: FieldValue] = [:]
        for field in node.fields where !field.isDisplayOnly {
            if field.kind == .multipleChoice {
                values[field.key] = .list(form.allValues[field.key] ?? [])
            } else if let value = form.values[field.key] {
                values[field.key] = .text(value)
            }
        }
        return values
    }

    private static func markup(for field: FlowField, messages: [FlowMessage], autofocus: Bool) -> String {
        let key = HTML.escape(field.key)
        let errorID = "\(key)-error"
        let errors = messages.map { #"<p class="error field-error" id="\#(errorID)">\#(HTML.escape($0.text))</p>"# }.joined()
        let described = messages.isEmpty ? "" : #" aria-describedby="\#(errorID)" aria-invalid="true""#
        var attributes = described + (field.required ? " required" : "") + (autofocus ? " autofocus" : "")
        switch field.kind {
        case .label:
            return #"<p class="label">\#(HTML.escape(field.label))</p>"#
        case .qrCode:
            let content = field.defaultValue ?? ""
            let image = (try? QRCode(encoding: content).svg(title: field.label)) ?? ""
            return #"<figure class="qr">\#(image)<figcaption>\#(HTML.escape(field.label))</figcaption></figure>"#
        case .singleChoice, .multipleChoice:
            let type = field.kind == .singleChoice ? "radio" : "checkbox"
            if field.kind == .multipleChoice { attributes = described }  // "required" on a check box would demand every box
            let chosen = Set((field.defaultValue ?? "").split(separator: ",").map(String.init))
            let options = (field.options ?? []).enumerated().map { index, option in
                let id = "\(key)-\(index)"
                let checked = chosen.contains(option.value) ? " checked" : ""
                return
                    #"<label class="choice" for="\#(id)"><input type="\#(type)" id="\#(id)" name="\#(key)" value="\#(HTML.escape(option.value))"\#(checked)\#(index == 0 ? attributes : "")> \#(HTML.escape(option.label))</label>"#
            }
            return #"<fieldset><legend>\#(HTML.escape(field.label))</legend>\#(options.joined())\#(errors)</fieldset>"#
        case .passkeyCreate, .passkeyGet:
            // Only a script can reach the authenticator: the part stays hidden until the page's script shows it.
            let ceremony = field.kind == .passkeyCreate ? "create" : "get"
            return
                #"<div class="passkey" hidden data-ceremony="\#(ceremony)" data-options="\#(HTML.escape(field.defaultValue ?? ""))"><input type="hidden" id="\#(key)" name="\#(key)"><p class="hint">\#(HTML.escape(field.label))</p>\#(errors)</div>"#
        case .text, .password, .phoneNumber, .oneTimeCode:
            let type =
                switch field.kind {
                case .password: "password"
                case .phoneNumber: "tel"
                default: "text"
                }
            if field.kind == .text { attributes += #" autocapitalize="none" spellcheck="false""# }
            if field.kind == .oneTimeCode { attributes += #" inputmode="numeric""# }
            if let autocomplete = field.autocomplete { attributes += #" autocomplete="\#(HTML.escape(autocomplete))""# }
            if let rules = field.validation {
                if let minimum = rules.minLength { attributes += #" minlength="\#(minimum)""# }
                if let maximum = rules.maxLength { attributes += #" maxlength="\#(maximum)""# }
                if let regex = rules.regex { attributes += #" pattern="\#(HTML.escape(regex))""# }
            }
            // A secret is never sent back to the browser.
            let value = field.isSecret ? "" : #" value="\#(HTML.escape(field.defaultValue ?? ""))""#
            return
                #"<label for="\#(key)">\#(HTML.escape(field.label))</label><input type="\#(type)" id="\#(key)" name="\#(key)"\#(value)\#(attributes)>\#(errors)"#
        }
    }
}
