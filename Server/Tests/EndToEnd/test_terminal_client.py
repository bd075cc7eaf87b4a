"""The terminal client: `gatehouse login`, `whoami`, `token` and `logout`, built on the Swift SDK, against live servers."""
import json
import os
import re
import stat
import time

import pexpect
import pytest
import requests

from conftest import PASSWORD
from gatehouse_harness import Server, binary, closed_port, gatehouse

CLI_CLIENT = "gatehouse-cli"
CLI_REDIRECT = "dev.gatehouse.cli:/callback"


@pytest.fixture(scope="module")
def cli_server(server):
    """The shared server, with the public client the terminal client uses."""
    server.add_client(CLI_CLIENT, CLI_REDIRECT, public=True, extra=["--name", "Terminal"])
    return server


def client(home, *args, stdin=None, check=True):
    return gatehouse(*args, "--home", str(home), stdin=stdin, check=check)


def login(server, home, username, password, *extra, check=True):
    return client(home, "login", "--issuer", server.issuer, "--username", username, "--password-stdin", *extra,
                  stdin=password + "\n", check=check)


def userinfo_status(server, token):
    return requests.get(server.issuer + "/userinfo", headers={"Authorization": f"Bearer {token}"}, timeout=10).status_code


def test_scripted_login_then_whoami_token_and_logout(cli_server, tmp_path):
    home = tmp_path / "home"
    signed_in = json.loads(login(cli_server, home, "alice", PASSWORD, "--json").stdout)
    assert signed_in["signed_in"] is True and signed_in["username"] == "alice" and signed_in["name"] == "Alice Example"
    assert signed_in["issuer"] == cli_server.issuer and signed_in["client_id"] == CLI_CLIENT
    assert "token" not in json.dumps(signed_in)  # login never prints a token

    # The session is owner-only and encrypted on disk.
    assert stat.S_IMODE(os.stat(home).st_mode) == 0o700
    token_files = [path for path in (home / "tokens").iterdir()]
    assert token_files and all(stat.S_IMODE(os.stat(path).st_mode) == 0o600 for path in token_files)

    # Every command below is a new process: the stored session survives the client's restart.
    whoami = client(home, "whoami").stdout
    assert re.search(r"^username\s+alice$", whoami, re.M) and re.search(r"^name\s+Alice Example$", whoami, re.M)
    assert json.loads(client(home, "whoami", "--json").stdout)["preferred_username"] == "alice"
    token = client(home, "token").stdout.strip()
    assert userinfo_status(cli_server, token) == 200
    assert all(token.encode() not in path.read_bytes() for path in token_files)
    details = json.loads(client(home, "token", "--json").stdout)
    assert details["token_type"] == "Bearer" and details["access_token"] == token

    assert client(home, "logout").stdout.strip() == f"Signed out of {cli_server.issuer}."
    assert userinfo_status(cli_server, token) == 401  # revoked at the server, not only forgotten here
    after = client(home, "whoami", check=False)
    assert after.returncode == 1 and "Not signed in; run `gatehouse login` first." in after.stderr
    assert client(home, "logout").stdout.strip() == "Not signed in."


def test_several_accounts_listed_switched_and_signed_out_one_by_one(cli_server, tmp_path):
    """Each person who signs in from the terminal is kept (the SDK's account list); the latest is current."""
    if not any(line.startswith("grace ") for line in cli_server.cli("users", "list").stdout.splitlines()):
        cli_server.add_user("grace", PASSWORD, name="Grace Hopper")
    home = tmp_path / "home"
    login(cli_server, home, "alice", PASSWORD)
    alice_token = client(home, "token").stdout.strip()
    login(cli_server, home, "grace", PASSWORD)
    listed = json.loads(client(home, "accounts", "--json").stdout)
    assert [(account["username"], account["current"]) for account in listed] == [("grace", True), ("alice", False)]
    assert all("token" not in key for account in listed for key in account)
    assert re.search(r"^\* grace \(Grace Hopper\)", client(home, "accounts").stdout, re.M)
    assert json.loads(client(home, "whoami", "--json").stdout)["preferred_username"] == "grace"
    # Alice's session is still good: switching to her needs no sign-in.
    assert userinfo_status(cli_server, alice_token) == 200
    assert client(home, "accounts", "switch", "alice").stdout.strip() == "Now signed in as alice (Alice Example)."
    assert json.loads(client(home, "whoami", "--json").stdout)["preferred_username"] == "alice"
    # Signing Alice in again replaces her session and revokes the one it replaces.
    login(cli_server, home, "alice", PASSWORD)
    assert userinfo_status(cli_server, alice_token) == 401
    assert [account["username"] for account in json.loads(client(home, "accounts", "--json").stdout)] == ["alice", "grace"]
    # Logging out the current account makes the other one current; removing by name signs that one out.
    grace_token_owner = client(home, "accounts", "switch", "grace")
    assert grace_token_owner.returncode == 0
    grace_token = client(home, "token").stdout.strip()
    assert client(home, "logout").stdout.strip() == f"Signed out of {cli_server.issuer}. Now signed in as alice (Alice Example)."
    assert userinfo_status(cli_server, grace_token) == 401
    unknown = client(home, "accounts", "switch", "grace", check=False)
    assert unknown.returncode != 0 and "No account grace is signed in here" in unknown.stderr
    assert client(home, "accounts", "remove", "alice").stdout.strip() == "Signed out alice (Alice Example)."
    assert client(home, "accounts").stdout.strip() == "Not signed in."
    assert client(home, "whoami", check=False).returncode == 1


def test_dpop_bound_terminal_session(cli_server, tmp_path):
    """`login --dpop`: the stored tokens are bound to a key kept with them; whoami proves possession, the bare token fails."""
    home = tmp_path / "home"
    login(cli_server, home, "alice", PASSWORD, "--dpop")
    details = json.loads(client(home, "token", "--json").stdout)
    assert details["token_type"] == "DPoP"
    assert json.loads(client(home, "whoami", "--json").stdout)["preferred_username"] == "alice"
    assert userinfo_status(cli_server, details["access_token"]) == 401  # as a bearer token, without the key's proof
    client(home, "logout")


def test_wrong_password_unreachable_server_and_unknown_client_are_clear_errors(cli_server, tmp_path):
    wrong = login(cli_server, tmp_path, "alice", "not the password", check=False)
    assert wrong.returncode == 1 and "Error: The username or password is incorrect." in wrong.stderr
    assert not (tmp_path / "session.json").exists()

    with closed_port() as refusing:
        nobody = f"http://127.0.0.1:{refusing.getsockname()[1]}"
        unreachable = client(tmp_path, "login", "--issuer", nobody, "--username", "alice", "--password-stdin", stdin="x\n", check=False)
    assert unreachable.returncode == 1
    assert "The identity provider could not be reached (connection refused)" in unreachable.stderr

    unknown = client(tmp_path, "login", "--issuer", cli_server.issuer, "--client-id", "no-such-app", "--username", "alice",
                     "--password-stdin", stdin=PASSWORD + "\n", check=False)
    assert unknown.returncode == 1 and "invalid_request" in unknown.stderr and "no-such-app" in unknown.stderr
    for result in (wrong, unreachable, unknown):
        assert PASSWORD not in result.stderr + result.stdout and "Fatal error" not in result.stderr


def spawn_login(server, home):
    return pexpect.spawn(binary(), ["login", "--issuer", server.issuer, "--home", str(home)], encoding="utf-8", timeout=60,
                         env=dict(os.environ, COLUMNS="120"))


def test_interactive_login_prompts_hides_the_password_and_retries(cli_server, tmp_path):
    session = spawn_login(cli_server, tmp_path)
    session.expect("Username: ")
    session.sendline("alice")
    session.expect("Password: ")
    session.sendline("a wrong password")
    session.expect("The username or password is incorrect.")
    session.expect(r"Username \[alice\]: ")  # the node again, the username kept
    session.sendline("")
    session.expect("Password: ")
    session.sendline(PASSWORD)
    session.expect("Signed in as alice \\(Alice Example\\)")
    session.expect(pexpect.EOF)
    session.close()
    assert session.exitstatus == 0
    transcript = session.before or ""
    assert PASSWORD not in transcript and "a wrong password" not in transcript  # never echoed
    assert "alice" in client(tmp_path, "whoami").stdout


def test_expired_flow_in_the_terminal(tmp_path):
    server = Server(config={"token_lifetimes": {"authorization_code": 5, "authorization_request": 1}})
    try:
        server.add_user("alice", PASSWORD)
        server.add_client(CLI_CLIENT, CLI_REDIRECT, public=True)
        session = spawn_login(server, tmp_path)
        session.expect("Username: ")
        time.sleep(2.2)  # the flow lives one second
        session.sendline("alice")
        session.expect("Password: ")
        session.sendline(PASSWORD)
        session.expect("Error: This sign-in has expired. Start again.")
        session.expect(pexpect.EOF)
        session.close()
        assert session.exitstatus == 1
    finally:
        server.stop()


def test_identify_first_and_refresh_through_the_stored_session(tmp_path):
    # Short access tokens: the SDK refreshes them on every use, so each `token` rotates the refresh token.
    server = Server(config={"login_steps": "identify_first", "token_lifetimes": {"authorization_code": 5, "access_token": 30}})
    try:
        server.add_user("alice", PASSWORD, name="Alice Example")
        server.add_client(CLI_CLIENT, CLI_REDIRECT, public=True)
        assert "Signed in as alice" in login(server, tmp_path, "alice", PASSWORD).stdout
        tokens = [client(tmp_path, "token").stdout.strip() for _ in range(3)]
        assert len(set(tokens)) == 3  # refreshed each time, the rotated refresh token stored each time
        assert userinfo_status(server, tokens[-1]) == 200
        assert "alice" in client(tmp_path, "whoami").stdout
    finally:
        server.stop()


def test_demo_server_keeps_a_configured_sign_on_policy(tmp_path):
    # The demo asks the terminal client for a second factor (test_second_factor.py walks that), unless the
    # configuration says otherwise: here the password alone, scripted.
    server = Server(demo=True, config={"client_sign_on": {"gatehouse-cli": {"second_factor": "off"}}})
    try:
        password = re.search(r"with the password (\S+)", server.stdout()).group(1)
        result = login(server, tmp_path, "demo", password)
        assert result.stdout.strip() == f"Signed in as demo (Demo User) at {server.issuer}."
        assert "demo" in client(tmp_path, "whoami").stdout
    finally:
        server.stop()
