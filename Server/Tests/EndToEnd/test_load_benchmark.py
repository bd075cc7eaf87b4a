"""The load benchmark's own smoke run: every scenario runs for a second against the built binary (cheap scrypt,
few TOTP users) and reports figures with no errors, so `scripts/benchmark-load` keeps working as the server
changes. Speed is judged by the benchmark's numbers, never here."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gatehouse_harness import ROOT, binary


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (.ci/run installs it)")
def test_every_scenario_runs_and_reports_without_errors(tmp_path):
    output = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "loadbench.py"), "--seconds", "1", "--connections", "4",
                          "--users", "40", "--totp-users", "8", "--log-n", "10", "--json", str(output)],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(output.read_text())
    scenarios = report["runs"][0]["scenarios"]
    assert set(scenarios) == {"http_floor", "discovery", "jwks", "userinfo", "refresh_token", "refresh_token_es256",
                              "client_credentials", "password_login", "password_totp_login"}
    for name, figures in scenarios.items():
        assert figures["count"] > 0 and figures["errors"] == 0, (name, figures)
        assert 0 < figures["p50_ms"] <= figures["p99_ms"], (name, figures)
    assert scenarios["password_totp_login"]["count"] == 8, "each enrolled user signs in once"
    assert report["runs"][0]["peak_memory_mib"] > 0
    assert "password logins / raw hash rate" in run.stdout and "against the HTTP floor" in run.stdout


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (.ci/run installs it)")
def test_against_a_baseline_build_prints_the_ratios(tmp_path):
    """`--against` runs the request scenarios on a baseline binary and on this one in the same run (here the same
    binary twice, with metrics on for the second), and prints each scenario's ratio."""
    output = tmp_path / "against.json"
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "loadbench.py"), "--seconds", "1", "--connections", "4",
                          "--users", "20", "--log-n", "10", "--metrics", "--against", binary(), "--rounds", "1", "--json", str(output)],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    best = json.loads(output.read_text())["against"]["best"]
    expected = {"http_floor", "userinfo", "refresh_token", "refresh_token_es256", "client_credentials"}
    assert set(best["baseline"]) == set(best["current"]) == expected
    assert all(figures["errors"] == 0 and figures["count"] > 0 for build in best.values() for figures in build.values())
    assert "with metrics" in run.stdout and all(f"\n{name} " in run.stdout for name in expected)


def test_the_qr_pages_benchmark_runs():
    """The open-QR-pages benchmark's smoke run: a few pages, a second each."""
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "qrstreams.py"), "--pages", "5", "--seconds", "1"],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SQLite, 5 open QR pages: server CPU" in run.stdout
