"""The native flow API: an app drives the login flow node by node as JSON and exchanges the code with PKCE."""
import json
import time

import pytest
import requests

from conftest import APP_REDIRECT, PASSWORD
from gatehouse_harness import conforms_to_openapi, error_of, exchange, Server, start, submit, verify_id_token


def test_single_node_login_with_a_retry_after_a_wrong_password(server):
    started = start(server)
    assert started.status_code == 200, started.text
    body = started.json()
    assert body["status"] == "continue" and len(body["flow_id"]) >= 43
    node = body["node"]
    assert node["id"] == "login.credentials" and node["category"] == "sign_in"
    assert [(f["key"], f["type"], f["autocomplete"]) for f in node["fields"]] == [
        ("username", "text", "username"), ("password", "password", "current-password")]
    assert node["actions"] == [{"id": "submit", "type": "submit", "label": "Sign in", "label_id": "flow.sign_in.submit"},
                               {"id": "recover", "type": "link", "label": "Forgot your password?", "label_id": "flow.sign_in.forgot_password",
                                "flow": "recovery"}]

    wrong = submit(server, body["flow_id"], {"username": "alice", "password": "nope nope"}).json()
    assert wrong["status"] == "error" and wrong["node"]["id"] == "login.credentials"
    assert wrong["node"]["messages"] == [{"level": "error", "text": "The username or password is incorrect.", "code": "invalid_credentials",
                                          "id": "flow.error.invalid_credentials"}]

    done = submit(server, body["flow_id"], {"username": "alice", "password": PASSWORD}).json()
    assert done["status"] == "success"
    authorization = done["authorization"]
    assert authorization["state"] == "st" and authorization["iss"] == server.issuer and authorization["redirect_uri"] == APP_REDIRECT
    tokens = exchange(server, authorization["code"])
    assert tokens.status_code == 200, tokens.text
    claims = verify_id_token(server, tokens.json(), "app", "nn", "RS256")
    assert claims["preferred_username"] == "alice" and claims["amr"] == ["pwd"]

    # A completed flow cannot be submitted again.
    again = submit(server, body["flow_id"], {"username": "alice", "password": PASSWORD})
    assert again.status_code == 404 and again.json()["status"] == "failure"


def test_identify_first_login():
    server = Server(config={"login_steps": "identify_first"})
    try:
        server.add_user("alice", PASSWORD)
        server.add_client("app", APP_REDIRECT, public=True)
        body = start(server, login_hint="ali").json()
        assert body["node"]["id"] == "login.identify"
        assert body["node"]["fields"][0]["default_value"] == "ali"
        # An unknown username moves on like a real one: nothing tells whether the account exists.
        unknown = submit(server, body["flow_id"], {"username": "nobody"}).json()
        assert unknown["status"] == "continue" and unknown["node"]["id"] == "login.password"
        fresh = start(server).json()
        password_node = submit(server, fresh["flow_id"], {"username": "alice"}).json()
        assert password_node["node"]["id"] == "login.password" and "alice" in password_node["node"]["description"]
        assert [f["key"] for f in password_node["node"]["fields"]] == ["password"]
        done = submit(server, fresh["flow_id"], {"password": PASSWORD}).json()
        assert done["status"] == "success"
        assert exchange(server, done["authorization"]["code"]).status_code == 200
    finally:
        server.stop()


def test_expired_flow_is_a_failure():
    server = Server(config={"token_lifetimes": {"authorization_code": 5, "authorization_request": 1}})
    try:
        server.add_client("app", APP_REDIRECT, public=True)
        body = start(server).json()
        time.sleep(2.2)
        expired = submit(server, body["flow_id"], {"username": "alice", "password": PASSWORD})
        assert expired.status_code == 404
        assert expired.json()["status"] == "failure" and expired.json()["failure"]["error"] == "flow_expired"
    finally:
        server.stop()


def test_flow_is_bound_to_its_client_and_checks_its_input(server):
    body = start(server).json()
    foreign = submit(server, body["flow_id"], {"username": "alice", "password": PASSWORD}, client_id="web")
    assert foreign.status_code == 404 and foreign.json()["status"] == "failure"
    unknown = submit(server, "x" * 43, {"username": "alice"})
    assert unknown.status_code == 404
    missing = submit(server, body["flow_id"], {"username": "alice"}).json()
    assert missing["status"] == "error"
    assert missing["node"]["messages"] == [{"level": "error", "text": "Password is required.", "field": "password", "code": "invalid_value",
                                            "id": "field.required", "context": {"label": "Password"}}]
    bad_action = submit(server, body["flow_id"], {}, action="teleport")
    assert bad_action.status_code == 400 and error_of(bad_action) == "invalid_request"
    # The flow still works after those mistakes.
    assert submit(server, body["flow_id"], {"username": "alice", "password": PASSWORD}).json()["status"] == "success"


@pytest.mark.parametrize("overrides, error", [
    ({"code_challenge": None, "code_challenge_method": None}, "invalid_request"),
    ({"code_challenge_method": "plain"}, "invalid_request"),
    ({"scope": "openid admin"}, "invalid_scope"),
    ({"redirect_uri": "com.example.app:/other"}, "invalid_request"),
    ({"client_id": "nobody"}, "invalid_request"),
])
def test_bad_start_requests_are_refused(server, overrides, error):
    response = start(server, **overrides)
    assert response.status_code == 400 and error_of(response) == error


def test_malformed_bodies_get_clear_errors(server):
    not_json = requests.post(server.issuer + "/flows/login", data="client_id=app", headers={"Content-Type": "application/json"}, timeout=10)
    assert conforms_to_openapi(server, not_json).status_code == 400 and "not a valid" in not_json.json()["error_description"]
    form = requests.post(server.issuer + "/flows/login", data={"client_id": "app"}, timeout=10)
    assert conforms_to_openapi(server, form).status_code == 415 and error_of(form) == "invalid_request"
    missing = conforms_to_openapi(server, requests.post(server.issuer + "/flows/login", json={"client_id": "app"}, timeout=10))
    assert missing.status_code == 400 and " is missing" in missing.json()["error_description"]


def test_openapi_document_is_valid_and_the_check_catches_drift(server):
    from openapi_spec_validator import validate
    document = requests.get(server.issuer + "/openapi.json", timeout=10).json()
    validate(document)  # a valid OpenAPI 3.1 document
    assert document["openapi"] == "3.1.0" and document["servers"] == [{"url": server.issuer}]
    # The response check is not a formality: an undocumented field or a wrong status value is caught.
    response = start(server)
    for tampered in ({**response.json(), "debug": True}, {**response.json(), "status": "maybe"}):
        response._content = json.dumps(tampered).encode()
        with pytest.raises(Exception):
            conforms_to_openapi(server, response)
