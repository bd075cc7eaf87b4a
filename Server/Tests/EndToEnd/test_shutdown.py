"""Graceful shutdown with QR pages open: their status streams end at once with a short `retry` (so the browsers
reconnect to another node), and a node under load stops within seconds of SIGTERM instead of waiting for every open
page's code to expire."""
from __future__ import annotations

import signal
import threading
import time

import requests

from gatehouse_harness import Browser, Server, show_qr_code


def test_open_status_streams_end_and_the_node_stops_within_seconds():
    server = Server(demo=True)
    try:
        endings: list[str] = []
        opened = threading.Barrier(11)

        def follow(browser: Browser, flow: str):
            with browser.session.get(f"{server.issuer}/login/app-status?flow={flow}", stream=True, timeout=60) as stream:
                lines = stream.iter_lines(decode_unicode=True)
                first = next(lines)
                opened.wait(timeout=30)
                last = first
                for line in lines:
                    if line:
                        last = line
                endings.append(last)

        followers = []
        for _ in range(10):
            browser = Browser(server)
            _, flow, _ = show_qr_code(server, browser)
            followers.append(threading.Thread(target=follow, args=(browser, flow)))
            followers[-1].start()
        opened.wait(timeout=30)

        # Load while it stops: requests keep coming until the listener closes.
        stop_load = threading.Event()

        def load():
            session = requests.Session()
            while not stop_load.is_set():
                try:
                    session.get(server.issuer + "/.well-known/openid-configuration", timeout=5)
                except requests.RequestException:
                    time.sleep(0.05)

        loaders = [threading.Thread(target=load) for _ in range(4)]
        for loader in loaders:
            loader.start()
        time.sleep(1)
        began = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        server.process.wait(timeout=30)
        took = time.monotonic() - began
        stop_load.set()
        for thread in followers + loaders:
            thread.join(timeout=30)
        assert took < 5, f"the node took {took:.1f} s to stop"
        assert len(endings) == 10 and all(ending == "retry: 500" for ending in endings), endings
        assert "Gatehouse stopped" in server.stderr()
    finally:
        server.stop()
