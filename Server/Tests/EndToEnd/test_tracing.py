"""Distributed tracing end to end: Gatehouse exports spans by OTLP/HTTP to a collector stand-in that decodes them with
the OpenTelemetry project's own protobuf definitions (opentelemetry-proto). A caller's W3C `traceparent` is continued,
the request's database and password-hash work are child spans, the email the request sends carries the trace on to
the webhook, log lines name the trace, and no password, code or flow handle appears in any span."""
from __future__ import annotations

import gzip
import json
import re
import secrets
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
import requests
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

from gatehouse_harness import (PASSWORD, WEB_REDIRECT, WEB_SECRET, Browser, Server, authorize_url, begin, gatehouse, redeem, redirect_parameters,
                               submit)


WEBHOOK_TOKEN = "webhook-query-token-3f9a1c"


class Collector(BaseHTTPRequestHandler):
    """An OTLP/HTTP collector (`/v1/traces`) and an email webhook (`/email`), keeping what they receive."""
    spans: list = []
    raw: list = []
    emails: list = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers["Content-Length"]))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        if self.path == "/v1/traces":
            assert self.headers["Content-Type"] == "application/x-protobuf"
            type(self).raw.append(body)
            request = ExportTraceServiceRequest()
            request.ParseFromString(body)
            for resource_spans in request.resource_spans:
                resource = {a.key: a.value.string_value for a in resource_spans.resource.attributes}
                for scope in resource_spans.scope_spans:
                    for span in scope.spans:
                        type(self).spans.append({
                            "trace_id": span.trace_id.hex(), "span_id": span.span_id.hex(), "parent": span.parent_span_id.hex(),
                            "name": span.name, "kind": span.kind, "resource": resource,
                            "attributes": {a.key: a.value.string_value or a.value.int_value for a in span.attributes}})
        elif self.path.split("?")[0] == "/email":
            type(self).emails.append({"traceparent": self.headers.get("traceparent"), "body": json.loads(body)})
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf" if self.path == "/v1/traces" else "application/json")
        self.end_headers()
        self.wfile.write(b"" if self.path == "/v1/traces" else b"{}")

    def log_message(self, *args):
        pass


@pytest.fixture(scope="module")
def traced():
    collector = ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    threading.Thread(target=collector.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{collector.server_address[1]}"
    # Spans are exported in batches; the standard OTEL_* variable shortens the wait between them.
    server = Server(config={"tracing": {"otlp_endpoint": base, "service_name": "gatehouse-e2e"},
                            # The webhook's URL carries a token in its query, as some mail APIs want it: it must not reach a span.
                            "courier": {"email": {"delivery": "webhook", "webhook": {"url": base + "/email?token=" + WEBHOOK_TOKEN}},
                                        "sms": {"delivery": "outbox"}}},
                    env={"OTEL_BSP_SCHEDULE_DELAY": "100"})
    server.add_user("alice", PASSWORD, email="alice@example.com", name="Alice Example")
    server.add_client("web", WEB_REDIRECT, secret=WEB_SECRET)
    server.add_client("app", "com.example.app:/callback", public=True)
    yield server
    server.stop()
    collector.shutdown()


def spans_of(trace_id, until, seconds=20):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        found = [span for span in Collector.spans if span["trace_id"] == trace_id]
        if until(found):
            return found
        time.sleep(0.2)
    raise AssertionError(f"spans of {trace_id} never met the condition: {found}")


def descendants(spans, root):
    children = [span for span in spans if span["parent"] == root["span_id"]]
    return children + [grandchild for child in children for grandchild in descendants(spans, child)]


def test_a_callers_trace_continues_through_the_sign_in(traced):
    trace_id, parent = secrets.token_hex(16), secrets.token_hex(8)
    browser = Browser(traced)
    browser.session.headers["traceparent"] = f"00-{trace_id}-{parent}-01"
    left = browser.sign_in(authorize_url(traced), "alice", PASSWORD)
    code = redirect_parameters(left)["code"]
    assert redeem(traced, code).status_code == 200

    def signed_in(spans):
        return any(span["name"] == "password hash" for span in spans) and sum(span["kind"] == 2 for span in spans) >= 3
    spans = spans_of(trace_id, signed_in)
    servers = [span for span in spans if span["kind"] == 2]  # SPAN_KIND_SERVER
    # Every request of the browser is a server span whose parent is the caller's span.
    assert servers and all(span["parent"] == parent for span in servers)
    assert all(span["resource"]["service.name"] == "gatehouse-e2e" for span in spans)
    assert {span["attributes"]["http.route"] for span in servers} >= {"/authorize"}
    assert all(re.fullmatch(r"(GET|POST) /\S*", span["name"]) for span in servers), [span["name"] for span in servers]
    # The password submission: its hash and its transactions are its children, on this engine.
    submission = next(span for span in servers if any(child["name"] == "password hash" for child in descendants(spans, span)))
    work = descendants(spans, submission)
    assert submission["attributes"]["http.response.status_code"] in (200, 302, 303)
    assert any(span["name"] == "db transaction" and span["attributes"]["db.system.name"] == "sqlite" for span in work)
    assert submission["attributes"]["gatehouse.request_id"]
    # Logged lines of the trace name it, beside their request id.
    deadline = time.monotonic() + 10
    while trace_id not in traced.stderr() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert f"trace_id={trace_id}" in traced.stderr()


def test_no_secret_leaves_in_a_span(traced):
    browser = Browser(traced)
    left = browser.sign_in(authorize_url(traced, state="state-value-1234567890"), "alice", PASSWORD)
    code = redirect_parameters(left)["code"]
    assert redeem(traced, code).status_code == 200
    flow = begin(traced, "recovery")
    submit(traced, flow["flow_id"], {"username": "alice"})
    time.sleep(1.5)  # two export rounds
    exported = b"".join(Collector.raw)
    for secret in (PASSWORD, code, "state-value-1234567890", flow["flow_id"]):
        assert secret.encode() not in exported, f"{secret} was exported in a span"


def test_a_request_without_a_caller_starts_its_own_trace_and_the_email_carries_it_on(traced):
    flow = begin(traced, "recovery")
    assert submit(traced, flow["flow_id"], {"username": "alice"}).status_code == 200
    # Plain requests, with no traceparent: the code's email goes out from this request's trace.
    answer = requests.post(f"{traced.issuer}/flows/{flow['flow_id']}", json={"client_id": "app", "action": "submit", "values": {"method": "email"}},
                           timeout=30)
    assert answer.status_code == 200 and answer.json()["node"]["id"] == "recovery.code", answer.text
    deadline = time.monotonic() + 20
    while not Collector.emails and time.monotonic() < deadline:
        time.sleep(0.2)
    assert Collector.emails, "no email reached the webhook"
    carried = Collector.emails[-1]["traceparent"]
    assert carried and re.fullmatch(r"00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]", carried), carried
    trace_id = carried.split("-")[1]
    spans = spans_of(trace_id, lambda spans: any(span["kind"] == 2 for span in spans) and any(span["kind"] == 3 for span in spans))
    root = next(span for span in spans if span["kind"] == 2)
    assert root["parent"] == "" and root["attributes"]["http.route"] == "/flows/{flow}"
    # The webhook call is a client span of the same trace, the parent of what the webhook received.
    client = next(span for span in spans if span["kind"] == 3 and span["span_id"] == carried.split("-")[2])
    assert client["name"] == "POST" and client["attributes"]["http.request.method"] == "POST"
    # It names where it went without the URL's query, which may carry a secret.
    assert client["attributes"]["url.full"].endswith("/email") and "token" not in client["attributes"]["url.full"], client["attributes"]
    assert "url.query" not in client["attributes"]
    time.sleep(1.5)  # two export rounds
    assert WEBHOOK_TOKEN.encode() not in b"".join(Collector.raw)


def test_tracing_settings_are_checked(tmp_path):
    config = tmp_path / "bad.json"
    config.write_text(json.dumps({"tracing": {"otlp_endpoint": "ftp://collector"}}))
    result = gatehouse("serve", "--config", str(config), "--database", str(tmp_path / "db.sqlite"), "--port", "0", check=False, timeout=60)
    assert result.returncode != 0 and "tracing.otlp_endpoint" in result.stderr, result.stderr
    config.write_text(json.dumps({"tracing": {"otlp_endpoint": "http://127.0.0.1:4318", "sample_ratio": 2}}))
    result = gatehouse("serve", "--config", str(config), "--database", str(tmp_path / "db.sqlite"), "--port", "0", check=False, timeout=60)
    assert result.returncode != 0 and "tracing.sample_ratio" in result.stderr, result.stderr
