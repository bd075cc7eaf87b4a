import GatehouseFoundation
import GatehouseProtocol
import HTTPTypes
import Hummingbird
import QRCode

/// Renders any flow node as an HTML form: the browser's rendering of what apps receive as JSON.
///
/// Labelled fields with `autocomplete` hints so password managers and one-time-code autofill work, the
/// server's rules as HTML constraints, a hidden CSRF token, and messages announced to screen readers.
enum FlowPage {
    static func render(
        _ node: FlowNode, flowID: String, csrfToken: String, action: String, status: HTTPResponse.Status = .ok, wording: Wording = .english
    ) -> Response {
        PageRenderer.page(
            title: node.name, body: content(node, flowID: flowID, csrfToken: csrfToken, action: action, wording: wording), status: status, wording: wording)
    }

    /// The node's form, as it goes inside the page's layout.
    static func content(_ node: FlowNode, flowID: String, csrfToken: String, action: String, wording: Wording = .english) -> String {
        let messages = node.messages.filter { $0.field == nil }.enumerated().map { index, message -> [String: Any] in
            ["level": message.level == .error ? "error" : "info", "text": message.text, "isFirst": index == 0]
        }
        let focus =
            node.fields.first { field in
                !field.isDisplayOnly && (field.defaultValue ?? "").isEmpty
            }?.key ?? (node.messages.isEmpty ? nil : node.fields.first { !$0.isDisplayOnly }?.key)
        let fields = node.fields.map { field in
            values(for: field, messages: node.messages.filter { $0.field == field.key }, autofocus: field.key == focus)
        }
        let usesPasskey = node.fields.contains { $0.kind == .passkeyCreate || $0.kind == .passkeyGet }
        // The sign-in node has a passkey action beside the password; a passkey step's own button is its main action.
        let passkeyButton = node.action(.passkey)?.id ?? node.primaryAction?.id
        let buttons = node.actions.map { action -> [String: Any] in
            // Another identity provider: a plain link to its start, which works without JavaScript.
            if action.kind == .idp, let url = action.url {
                var button: [String: Any] = ["isIdentityProvider": true, "url": url, "id": action.id, "label": action.label]
                if let icon = action.icon { button["icon"] = icon }
                return button
            }
            // Only the main action submits the fields; the others (links, resend, another method) skip the browser's checks.
            return [
                "isIdentityProvider": false, "id": action.id, "label": action.label, "isLink": action.kind == .link,
                "isSecondary": action.kind != .link && action.id != node.primaryAction?.id,
                // A passkey's button needs the page's script: hidden until the script shows it.
                "isPasskey": usesPasskey && action.id == passkeyButton,
            ]
        }
        var page: [String: Any] = [
            "name": node.name, "description": node.description, "messages": messages, "action": action, "nodeID": node.id, "flowID": flowID,
            "csrfToken": csrfToken, "fields": fields, "buttons": buttons, "usesPasskey": usesPasskey,
        ]
        // The QR sign-in and push nodes follow their status live (``AppLoginStatusStream``); without JavaScript their
        // button does the same. Flow ids are base64url, safe in a query as they are.
        if [FlowStep.appLogin, .push, .pushSignIn].contains(where: { $0.rawValue == node.id }) {
            page["appLoginEvents"] = "/login/app-status?flow=\(flowID)"
        }
        // The consent node names the application as its operator registered it: logo and home page, when given.
        if let application = node.consent?.application {
            var consent: [String: Any] = ["name": application.name]
            if let logo = application.logoURI { consent["logoURI"] = logo }
            if let homepage = application.homepage { consent["homepage"] = homepage }
            page["consent"] = consent
        }
        return Templates.render("flow", page.merging(wording.pageValues) { own, _ in own })
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

    /// What the template `flow-field` shows of `field`: which kind of markup, and its attributes' values.
    private static func values(for field: FlowField, messages: [FlowMessage], autofocus: Bool) -> [String: Any] {
        var values: [String: Any] = [
            "key": field.key, "label": field.label, "errors": messages.map { ["text": $0.text] }, "isInvalid": !messages.isEmpty,
            "isRequired": field.required, "isAutofocus": autofocus,
            "isLabel": false, "isQRCode": false, "isChoice": false, "isPasskey": false, "isInput": false,
        ]
        switch field.kind {
        case .label:
            values["isLabel"] = true
        case .qrCode:
            values["isQRCode"] = true
            values["svg"] = (try? QRCode(encoding: field.defaultValue ?? "").svg(title: field.label)) ?? ""
        case .singleChoice, .multipleChoice:
            values["isChoice"] = true
            if field.kind == .multipleChoice {
                // "required" on a check box would demand every box.
                values["isRequired"] = false
                values["isAutofocus"] = false
            }
            let chosen = Set((field.defaultValue ?? "").split(separator: ",").map(String.init))
            values["options"] = (field.options ?? []).enumerated().map { index, option -> [String: Any] in
                [
                    "optionID": "\(field.key)-\(index)", "choiceType": field.kind == .singleChoice ? "radio" : "checkbox", "value": option.value,
                    "optionLabel": option.label, "checked": chosen.contains(option.value), "isFirst": index == 0,
                ]
            }
        case .passkeyCreate, .passkeyGet:
            // Only a script can reach the authenticator: the part stays hidden until the page's script shows it.
            values["isPasskey"] = true
            values["ceremony"] = field.kind == .passkeyCreate ? "create" : "get"
            values["options"] = field.defaultValue ?? ""
        case .text, .password, .phoneNumber, .oneTimeCode, .unknown:
            values["isInput"] = true
            values["inputType"] =
                switch field.kind {
                case .password: "password"
                case .phoneNumber: "tel"
                default: "text"
                }
            values["isText"] = field.kind == .text
            values["isCode"] = field.kind == .oneTimeCode
            // A secret is never sent back to the browser.
            values["isSecret"] = field.isSecret
            values["value"] = field.defaultValue ?? ""
            if let autocomplete = field.autocomplete { values["autocomplete"] = autocomplete }
            if let minimum = field.validation?.minLength { values["minLength"] = minimum }
            if let maximum = field.validation?.maxLength { values["maxLength"] = maximum }
            if let regex = field.validation?.regex { values["pattern"] = regex }
        }
        return values
    }
}
