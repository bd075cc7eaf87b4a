"""The README's walkthrough, as a person at a terminal does it against `gatehouse serve --demo`: register with
first and last name, confirm the email and phone with codes from the outbox, enroll TOTP (codes from pyotp, an
authenticator app's algorithm), sign in with password plus TOTP, with password plus an emailed code, reset a
forgotten password by SMS code, change a password an operator expired, and replace the authenticator app."""
import json
import re
import time

import pexpect
import pyotp

from gatehouse_harness import Server, binary

PASSWORD = "tea with milk and two sugars"
RESET_PASSWORD = "coffee black no sugar please"
CHANGED_PASSWORD = "green tea in the afternoon"


def newest_code(server, to):
    messages = json.loads(server.cli("outbox", "--to", to, "--json", "--limit", "1").stdout)
    return re.search(r"\b(\d{6})\b", messages[0]["body"]).group(1)


def gatehouse(env, *args):
    return pexpect.spawn(binary(), list(args), env=env, encoding="utf-8", timeout=60)


def choose(child, menu, number):
    child.expect(menu)
    child.expect("Number: ")
    child.sendline(str(number))


def enter_code(child, code):
    """A code node offers "Send a new code" too: pick the main action, then type the code."""
    choose(child, "What next\\?", 1)
    child.expect("Code: ")
    child.sendline(code)


def test_the_readme_walkthrough_in_the_terminal(tmp_path):
    server = Server(demo=True)
    env = {"GATEHOUSE_HOME": str(tmp_path), "GATEHOUSE_ISSUER": server.issuer, "PATH": "/usr/bin:/bin"}
    try:
        child = gatehouse(env, "register")
        for prompt, answer in [("First name: ", "Grace"), ("Last name: ", "Hopper"), ("Email: ", "grace@example.com"),
                               ("Mobile number.*: ", "+15550004444"), ("Username: ", "grace"), ("Password: ", PASSWORD),
                               ("Repeat the password: ", PASSWORD)]:
            child.expect(prompt)
            child.sendline(answer)
        child.expect("Confirm your email")
        enter_code(child, newest_code(server, "grace@example.com"))
        child.expect("Confirm your mobile number")
        enter_code(child, newest_code(server, "+15550004444"))
        # The terminal client requires a second factor on the demo: choose the authenticator app (beside the phone
        # and the email address) and enroll TOTP from the QR code's URI.
        choose(child, "Protect your account", 1)
        child.expect("Set up two-step verification")
        child.expect(r"(otpauth://totp/\S+)")
        totp = pyotp.parse_uri(child.match.group(1))
        child.expect("Code: ")
        child.sendline(totp.now())
        child.expect("Save your recovery codes")
        child.expect(r"([a-z2-7]{5}-[a-z2-7]{5})")
        recovery_code = child.match.group(1)
        child.expect("Registered and signed in as grace \\(Grace Hopper\\)")
        child.expect(pexpect.EOF)

        # Password plus TOTP (the next time step: the enrollment used this one).
        assert pexpect.run(binary(), args=["logout"], env=env, withexitstatus=True)[1] == 0
        child = gatehouse(env, "login", "--username", "grace")
        child.expect("Password: ")
        child.sendline(PASSWORD)
        choose(child, "Verify with", 1)  # authenticator app, email, text message, recovery code
        choose(child, "What next\\?", 1)
        child.expect("Code: ")
        child.sendline(totp.at(time.time() + 30))
        child.expect("Signed in as grace")
        child.expect(pexpect.EOF)

        # Password plus a code by email.
        child = gatehouse(env, "login", "--username", "grace")
        child.expect("Password: ")
        child.sendline(PASSWORD)
        choose(child, "Verify with", 2)
        child.expect("We sent a code to g•••@example.com")
        enter_code(child, newest_code(server, "grace@example.com"))
        child.expect("Signed in as grace")
        child.expect(pexpect.EOF)

        # A forgotten password, reset by SMS; the enrolled second factor is still asked (here a recovery code).
        child = gatehouse(env, "reset-password", "--username", "grace")
        choose(child, "Send the code by", 2)
        child.expect("Enter the code")
        enter_code(child, newest_code(server, "+15550004444"))
        choose(child, "Verify with", 2)  # authenticator app, recovery code
        choose(child, "What next\\?", 1)
        child.expect("Recovery code: ")
        child.sendline(recovery_code)
        child.expect("Choose a new password")
        child.expect("New password: ")
        child.sendline(RESET_PASSWORD)
        child.expect("Repeat the password: ")
        child.sendline(RESET_PASSWORD)
        child.expect("Password reset; signed in as grace")
        child.expect(pexpect.EOF)

        # An operator expires the password: the next sign-in must change it.
        server.cli("users", "require-password-change", "grace")
        child = gatehouse(env, "login", "--username", "grace")
        child.expect("Password: ")
        child.sendline(RESET_PASSWORD)
        choose(child, "Verify with", 2)
        enter_code(child, newest_code(server, "grace@example.com"))
        child.expect("Your password has expired")
        child.expect("New password: ")
        child.sendline(CHANGED_PASSWORD)
        child.expect("Repeat the password: ")
        child.sendline(CHANGED_PASSWORD)
        child.expect("Signed in as grace")
        child.expect(pexpect.EOF)
        whoami = pexpect.run(binary(), args=["whoami"], env=env, withexitstatus=True)
        assert whoami[1] == 0 and "grace" in whoami[0].decode()

        # A new phone: replace the authenticator app after signing in with a second factor; the email is told.
        child = gatehouse(env, "enroll", "--username", "grace")
        child.expect("Password: ")
        child.sendline(CHANGED_PASSWORD)
        choose(child, "Verify with", 2)
        enter_code(child, newest_code(server, "grace@example.com"))
        choose(child, "What do you want to change\\?", 1)
        child.expect("Set up two-step verification")
        child.expect(r"(otpauth://totp/\S+)")
        new_totp = pyotp.parse_uri(child.match.group(1))
        assert new_totp.secret != totp.secret
        child.expect("Code: ")
        child.sendline(new_totp.now())
        child.expect("Save your recovery codes")
        child.expect("Two-step verification updated; signed in as grace")
        child.expect(pexpect.EOF)
        notice = json.loads(server.cli("outbox", "--to", "grace@example.com", "--json", "--limit", "1").stdout)[0]
        assert notice["template"] == "authenticator_changed"
    finally:
        server.stop()
