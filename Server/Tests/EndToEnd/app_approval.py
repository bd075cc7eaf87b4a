"""An authenticator app approving sign-ins, for tests that play the phone with `gatehouse authenticator` and the
browser with the flow API: binding the app to an address by its emailed code, setting its PIN, and approving a QR
sign-in."""
import html
import json

from gatehouse_harness import APP_REDIRECT, CODE_PATTERN, RFC7636_CHALLENGE, authenticator, latest_code, outbox

PIN = "8642"


def start(session, node, client_id="app", acr_values=None):
    body = {"client_id": client_id, "redirect_uri": APP_REDIRECT, "scope": "openid", "state": "st", "nonce": "nn",
            "code_challenge": RFC7636_CHALLENGE, "code_challenge_method": "S256"}
    if acr_values:
        body["acr_values"] = acr_values
    response = session.post(node.issuer + "/flows/login", json=body, timeout=10)
    assert response.status_code == 200, response.text
    return response.json()


def submit(session, node, flow_id, values, action="submit", client_id="app"):
    response = session.post(f"{node.issuer}/flows/{flow_id}", json={"client_id": client_id, "action": action, "values": values}, timeout=30)
    return response.json()


def node_id(answer):
    return (answer.get("node") or {}).get("id")


def bind_app(node, home, email):
    """What the attacker does with the mailbox alone: registers an app for the address, reads the code, sets a PIN."""
    before = len(outbox(node, email))
    identity = authenticator(home, "register", "--service", node.issuer, "--email", email, "--no-wait").stdout.strip()
    authenticator(home, "confirm", identity, "--code", latest_code(node, email, after=before))
    assert "Registered" in authenticator(home, "set-pin", identity, "--pin-stdin", stdin=PIN + "\n").stdout


def approve_qr_sign_in(browser_node, app_node, home, session, acr_values=None):
    """Starts a sign-in on `browser_node`, has the app approve its QR code through `app_node`; the answer after approving."""
    flow = start(session, browser_node, acr_values=acr_values)["flow_id"]
    shown = submit(session, browser_node, flow, {}, action="app")
    assert node_id(shown) == "login.app", shown
    code = CODE_PATTERN.search(html.unescape(json.dumps(shown))).group(1)
    payload = f"{app_node.issuer}/authenticator#{code}"
    assert "Approved" in authenticator(home, "approve", payload, "--pin-stdin", stdin=PIN + "\n").stdout
    return flow, submit(session, browser_node, flow, {}, action="check")
