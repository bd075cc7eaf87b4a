"""The load benchmark's own smoke run: every scenario runs for a second against the built binary (cheap scrypt,
few TOTP users) and reports figures with no errors, so `scripts/benchmark-load` keeps working as the server
changes. Speed is judged by the benchmark's numbers, never here."""
import json
import os
import shutil
import subprocess
import sys

import pytest

from gatehouse_harness import POSTGRES_URL, ROOT, binary


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (.ci/run installs it)")
def test_every_scenario_runs_and_reports_without_errors(tmp_path):
    output = tmp_path / "figures.json"
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "loadbench.py"), "--seconds", "1", "--connections", "4",
                          "--users", "40", "--totp-users", "8", "--log-n", "10", "--json", str(output)],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    report = json.loads(output.read_text())
    scenarios = report["runs"][0]["scenarios"]
    assert set(scenarios) == {"http_floor", "discovery", "jwks", "userinfo", "refresh_token", "refresh_token_es256", "userinfo_dpop",
                              "refresh_token_es256_dpop", "client_credentials", "client_credentials_opaque_api", "client_credentials_jwt",
                              "client_credentials_jwt_es256",
                              "password_login", "password_totp_login"}
    for name, figures in scenarios.items():
        assert figures["count"] > 0 and figures["errors"] == 0, (name, figures)
        assert 0 < figures["p50_ms"] <= figures["p99_ms"], (name, figures)
    assert scenarios["password_totp_login"]["count"] == 8, "each enrolled user signs in once"
    assert report["runs"][0]["peak_memory_mib"] > 0
    assert "password logins / raw hash rate" in run.stdout and "against the HTTP floor" in run.stdout
    assert "DPoP-bound / bearer" in run.stdout
    # Logins set against the hash rate by the server's own CPU, whatever the driver on the same cores costs.
    assert all(scenarios[name]["server_cpu_seconds"] > 0 for name in ("password_login", "password_totp_login"))
    assert "logins per server core-second / raw hash rate per core" in run.stdout and "password_login " in run.stdout.split("core-second")[1]
    # The signature baselines, measured in the same run: OpenSSL's own rate and the server's signers.
    signatures = report["signatures"]
    assert signatures["openssl_rsa2048_one_core"] > 0 and signatures["openssl_rsa2048_every_core"] > 0
    assert set(signatures["gatehouse"]) == {"RS256", "RS256 (swift-crypto)", "ES256"} and all(rate > 0 for rate in signatures["gatehouse"].values())
    assert f"of {os.cpu_count()} cores × openssl speed rsa2048" in run.stdout
    assert "JWT access tokens (client credentials for an API) / opaque ones" in run.stdout
    # What each request cost the server alone, and what that says of the signatures' share.
    assert all(figures["server_cpu_us"] > 0 for figures in scenarios.values()), scenarios
    assert "server µs" in run.stdout and "server CPU per RS256 refresh" in run.stdout and "server CPU per token: opaque" in run.stdout


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (.ci/run installs it)")
def test_against_a_baseline_build_prints_the_ratios(tmp_path):
    """`--against` runs the request scenarios and the flow sign-ins on a baseline binary and on this one in the same run (here the same
    binary twice, with metrics on for the second), and prints each scenario's ratio."""
    output = tmp_path / "against.json"
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "loadbench.py"), "--seconds", "1", "--connections", "4",
                          "--users", "20", "--totp-users", "5", "--log-n", "10", "--metrics", "--against", binary(), "--rounds", "1",
                          "--json", str(output)],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    best = json.loads(output.read_text())["against"]["best"]
    expected = {"http_floor", "discovery", "userinfo", "refresh_token", "refresh_token_es256", "client_credentials", "client_credentials_opaque_api",
                "client_credentials_jwt", "client_credentials_jwt_es256", "password_login", "password_totp_login"}
    assert set(best["baseline"]) == set(best["current"]) == expected
    assert all(figures["errors"] == 0 and figures["count"] > 0 for build in best.values() for figures in build.values())
    assert "with metrics" in run.stdout and all(f"\n{name} " in run.stdout for name in expected)


def test_the_qr_pages_benchmark_runs():
    """The open-QR-pages benchmark's smoke run: a few pages, a second each."""
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "qrstreams.py"), "--pages", "5", "--seconds", "1"],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "SQLite, 5 open QR pages: server CPU" in run.stdout


def test_the_stall_benchmark_runs_every_phase(tmp_path):
    """The stall benchmark's smoke run: each phase for a second, against the same build twice (``--against``)."""
    output = tmp_path / "stalls.json"
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "stalls.py"), "--seconds", "1", "--threads", "2",
                          "--against", binary(), "--json", str(output)],
                         capture_output=True, text=True, timeout=600, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    figures = json.loads(output.read_text())
    phases = {"quiet", "key rotations (admin API)", "operator CLI writes", "password sign-ins"}
    assert set(figures) == {"baseline", "this build"} and all(set(build) == phases for build in figures.values())
    assert all(phase["count"] > 0 and phase["errors"] == 0 for build in figures.values() for phase in build.values())
    assert "worst grant latency, this build / baseline" in run.stdout


def loadbench(*arguments: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "loadbench.py"), "--seconds", "1", "--connections", "4",
                           "--users", "40", "--totp-users", "4", "--log-n", "10", *arguments],
                          capture_output=True, text=True, timeout=timeout, env=dict(os.environ, GATEHOUSE_BINARY=binary()))


@pytest.mark.skipif(shutil.which("wrk") is None or shutil.which("sqlite3") is None, reason="wrk and sqlite3 are needed (.ci/run installs them)")
def test_the_scale_comparison_seeds_tokens_and_prints_ratios(tmp_path):
    """`--scale` (here with a few hundred users and thousands of tokens instead of a million and ten million): the big
    database really holds the seeded tokens, and the ratios against a fresh one are printed."""
    output = tmp_path / "scale.json"
    run = loadbench("--scale", "--scale-users", "300", "--scale-tokens", "4000", "--rounds", "1", "--json", str(output))
    assert run.returncode == 0, run.stdout + run.stderr
    scale = json.loads(output.read_text())["runs"][0]["scale"]
    assert set(scale["ratios"]) == {"userinfo", "refresh_token_es256", "password_login"}
    assert all(ratio > 0 for ratio in scale["ratios"].values())
    assert scale["big"]["users"] == 300 and all(f["errors"] == 0 for f in scale["big"]["scenarios"].values())
    assert "with 300 users and 4,000 stored tokens against a fresh database" in run.stdout


@pytest.mark.skipif(shutil.which("wrk") is None or not POSTGRES_URL, reason="wrk and PostgreSQL are needed (scripts/with-postgres)")
def test_postgres_figures_come_with_pgbench_two_nodes_and_scale(tmp_path):
    """On PostgreSQL the benchmark states the server's durability settings, runs pgbench as the baseline, drives two
    nodes at once, and seeds tokens through psql for the scale comparison."""
    output = tmp_path / "postgres.json"
    run = loadbench("--postgres-only", "--two-nodes", "--scale", "--scale-users", "200", "--scale-tokens", "4000", "--rounds", "1",
                    "--json", str(output))
    assert run.returncode == 0, run.stdout + run.stderr
    results = json.loads(output.read_text())["runs"][0]
    assert results["engine"] == "postgres" and "fsync=" in results["postgres_settings"]
    assert results["pgbench"]["tpcb_like"] > 0 and results["pgbench"]["refresh_statements"] > 0
    for name, figure in results["two_nodes"].items():
        assert all(node["count"] > 0 and node["errors"] == 0 for node in figure["nodes"]), (name, figure)
    assert "two nodes on one PostgreSQL" in run.stdout and "ES256 refresh / refresh statements" in run.stdout
    assert "with 200 users and 4,000 stored tokens" in run.stdout


@pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (.ci/run installs it)")
def test_the_soak_runs_and_samples_the_tables():
    """The soak's smoke run: half a minute of traffic, sampled twice; the sweep runs every 30 s."""
    run = subprocess.run([sys.executable, str(ROOT.parent / "Benchmarks" / "Load" / "soak.py"), "--minutes", "0.5", "--every", "0.25"],
                         capture_output=True, text=True, timeout=300, env=dict(os.environ, GATEHOUSE_BINARY=binary()))
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.count(" min  rotations") >= 2 and "refresh_tokens=" in run.stdout
    assert "rotations in all" in run.stdout and "(0 errors)" in run.stdout
