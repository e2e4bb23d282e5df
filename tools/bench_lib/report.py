"""The targets of issues 6 and 10 and the markdown table printed at the end of a run."""

from __future__ import annotations

# endpoint -> least CPU ratio to the baseline (keep-alive, 1 worker): baseline CPU per
# request / the endpoint's, the steady figure on a shared machine (issue 10)
TARGETS = {
    "userinfo": 0.6,
    "refresh": 0.35,
    "code_exchange": 0.35,
    "revoke": 0.4,
}
P99_OVER_P50 = 4.0
KIT_TOKEN_RATIO = 1.3
SCALING_RATIO = 1.2
LABELS = {
    "baseline": "baseline (bare Starlette, GET JSON)",
    "baseline_limits": "baseline behind the server's HTTP limits",
    "userinfo": "GET /oauth2/userinfo (bearer)",
    "refresh": "POST /oauth2/token refresh",
    "code_exchange": "POST /oauth2/token code exchange",
    "revoke": "POST /oauth2/revoke",
}


def _kinds(kinds: dict | None) -> str:
    """Prompts per kind in a phrase: "approve 56, deny 2, ..."."""
    return ", ".join(f"{k} {v}" for k, v in (kinds or {}).items()) or "not measured"


def _fmt(value, digits: int = 2, suffix: str = "") -> str:
    if value is None:
        return "n/a"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value}{suffix}"
    return f"{value:.{digits}f}{suffix}"


def targets(doc: dict) -> list[dict]:
    found: list[dict] = []

    def add(name: str, goal: str, value, met: bool | None) -> None:
        found.append({"target": name, "goal": goal, "value": value, "met": met})

    server = doc.get("server", {})
    one = server.get("keepalive", {}).get("workers_1", {}) if server.get("available") else {}
    for endpoint, least in TARGETS.items():
        row = one.get(endpoint)
        ratio = row.get("cpu_ratio") if row else None
        add(
            f"{endpoint} CPU ratio to the baseline (keep-alive, 1 worker)",
            f">= {least}",
            ratio,
            None if ratio is None else ratio >= least,
        )
    if one:
        errors = sum(row["errors"] for row in one.values())
        add("errors under load (keep-alive, 1 worker)", "0", errors, errors == 0)
        worst = max((r["p99_over_p50"] or 0.0) for r in one.values())
        add(
            "worst p99 / p50 (keep-alive, 1 worker)",
            f"<= {P99_OVER_P50}",
            worst,
            worst <= P99_OVER_P50,
        )
    kit = doc.get("kit", {})
    token = kit.get("token", {}).get("ratio") if kit.get("available") else None
    add(
        "mb-oauth token start-up / import baseline",
        f"<= {KIT_TOKEN_RATIO}",
        token,
        None if token is None else token <= KIT_TOKEN_RATIO,
    )
    scale = doc.get("scaling", {})
    if scale.get("available") and scale.get("rows"):
        last = scale["rows"][-1]
        worst_ratio = max(
            last[name]["p50_ratio_to_smallest"] or 0.0 for name in ("refresh", "code_exchange")
        )
        add(
            f"token latency at {last['grants']} grants / at {scale['rows'][0]['grants']}",
            f"<= {SCALING_RATIO}",
            worst_ratio,
            worst_ratio <= SCALING_RATIO,
        )
        past = scale.get("history")
        if past:
            ratio = past["refresh"]["p50_ratio_to_smallest"]
            add(
                f"refresh latency, grants with {past['past_tokens_per_grant']} past tokens / none",
                f"<= {SCALING_RATIO}",
                ratio,
                None if ratio is None else ratio <= SCALING_RATIO,
            )
    else:
        add(
            "token latency at the largest size of stored grants / smallest",
            f"<= {SCALING_RATIO}",
            None,
            None,
        )
    return found


def _server_table(title: str, tables: dict, lines: list[str]) -> None:
    if not tables or not any(tables.values()):
        return
    keys = [k for k, v in tables.items() if v]
    header = "| endpoint |"
    rule = "|---|"
    for key in keys:
        workers = key.split("_")[1]
        header += (
            f" req/s ({workers}w) | ratio ({workers}w) | p50 ms | p99 ms | errors |"
            " CPU us/req | CPU ratio |"
        )
        rule += "---:|---:|---:|---:|---:|---:|---:|"
    lines += [f"### {title}", "", header, rule]
    for endpoint, label in LABELS.items():
        if not any(endpoint in tables[k] for k in keys):
            continue
        line = f"| {label} |"
        for key in keys:
            row = tables[key].get(endpoint)
            if row is None:
                line += " n/a | n/a | n/a | n/a | n/a | n/a | n/a |"
                continue
            line += (
                f" {_fmt(row['rps'], 0)} | {_fmt(row['ratio'])} | {_fmt(row['p50_ms'], 1)} |"
                f" {_fmt(row['p99_ms'], 1)} | {row['errors']} |"
                f" {_fmt(row.get('cpu_us_per_request'), 0)} | {_fmt(row.get('cpu_ratio'))} |"
            )
        lines.append(line)
    lines.append("")


def render(doc: dict) -> str:
    lines = [
        f"## Benchmark ({doc['mode']} run, {doc['started']}, {doc['machine']['cpus']} CPUs)",
        "",
        "Medians of interleaved repetitions; ratios are to a baseline measured in the same run.",
        "CPU us/req: the server's own CPU time (all its processes) per request; CPU ratio:",
        "baseline CPU per request / the endpoint's, the throughput ratio a server alone on its",
        "core would reach (steadier than req/s on a shared machine).",
        "",
    ]
    server = doc.get("server", {})
    if server.get("available"):
        s = server["settings"]
        _server_table(
            f"Server throughput over TLS, keep-alive (wrk, {s['wrk_connections']} connections, "
            f"{s['repetitions']} x {s['wrk_duration_s']} s)",
            server.get("keepalive", {}),
            lines,
        )
        _server_table(
            f"Server throughput, new TLS connection per request (hey -disable-keepalive, "
            f"{s['hey_concurrency']} concurrent)",
            server.get("new_connection", {}),
            lines,
        )
    else:
        lines += [f"Server throughput: not available ({server.get('reason')})", ""]

    scale = doc.get("scaling", {})
    if scale.get("available"):
        lines += [
            f"### Token endpoint latency against stored grants "
            f"(wrk, {scale['settings']['wrk_connections']} connections)",
            "",
            "| stored grants | refresh p50 ms | ratio | CPU ratio | code exchange p50 ms | ratio"
            " | CPU ratio | errors |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        rows = [(f"{row['grants']:,}", row) for row in scale["rows"]]
        past = scale.get("history")
        if past:
            label = f"{past['grants']:,}, {past['past_tokens_per_grant']:,} past tokens per grant"
            rows.append((label, past))
        for label, row in rows:
            r, c = row["refresh"], row["code_exchange"]
            lines.append(
                f"| {label} | {_fmt(r['p50_ms'], 2)} | {_fmt(r['p50_ratio_to_smallest'])}"
                f" | {_fmt(r.get('cpu_ratio_to_smallest'))}"
                f" | {_fmt(c['p50_ms'], 2)} | {_fmt(c['p50_ratio_to_smallest'])}"
                f" | {_fmt(c.get('cpu_ratio_to_smallest'))} | {r['errors'] + c['errors']} |"
            )
        lines.append("")
    else:
        lines += [f"Scaling: not available ({scale.get('reason')})", ""]

    suite = doc.get("suite", {})
    if suite.get("available"):
        lines += [
            "### Conformance suite (full run against the bundled server)",
            "",
            "| wall time s | scenarios | HTTP requests | consent approvals | exit status |",
            "|---:|---:|---:|---:|---:|",
            f"| {_fmt(suite.get('wall_s'), 1)} | {_fmt(suite.get('scenarios'))} |"
            f" {_fmt(suite.get('http_requests'))} | {_fmt(suite.get('consent_approvals'))} |"
            f" {_fmt(suite.get('exit_status'))} |",
            "",
            f"Manual prompts per full run (--run-lasting, counted by the run itself): "
            f"{_fmt(suite.get('manual_prompts'))} ({_kinds(suite.get('manual_prompts_by_kind'))})",
            "",
        ]
    else:
        lines += [f"Suite: not available ({suite.get('reason')})", ""]

    kit = doc.get("kit", {})
    if kit.get("available"):
        lines += [
            "### Client kit start-up",
            "",
            "| command | median ms | ratio to `import httpx, click, keyring` |",
            "|---|---:|---:|",
        ]
        for key in ("baseline", "help", "token"):
            row = kit.get(key)
            if row:
                lines.append(
                    f"| {row['label']} | {_fmt(row.get('median_ms'), 1)} |"
                    f" {_fmt(row.get('ratio'))} |"
                )
        login = kit.get("login", {})
        lines += [
            "",
            f"Peak memory of a scripted loopback login: "
            f"{_fmt(login.get('max_rss_mb'), 1, ' MB')}"
            + (f" ({login['reason']})" if login.get("reason") else ""),
            "",
        ]
    else:
        lines += [f"Kit: not available ({kit.get('reason')})", ""]

    _durability(doc.get("durability", {}), lines)
    lines += ["### Targets", "", "| target | goal | value | met |", "|---|---|---:|---|"]
    for t in doc.get("targets", []):
        met = {True: "yes", False: "**no**", None: "n/a"}[t["met"]]
        lines.append(f"| {t['target']} | {t['goal']} | {_fmt(t['value'])} | {met} |")
    if doc.get("notes"):
        lines += ["", "Notes:"] + [f"- {n}" for n in doc["notes"]]
    return "\n".join(lines)


def _durability(section: dict, lines: list[str]) -> None:
    if not section.get("available"):
        lines += [f"Durability: not available ({section.get('reason')})", ""]
        return
    s = section["settings"]
    lines += [
        f"### Token endpoint, --durability normal and full (wrk, {s['connections']} connections,"
        f" {s['repetitions']} x {s['wrk_duration_s']} s each, in pairs)",
        "",
        "| endpoint | normal req/s | full req/s | req/s full/normal | normal CPU us/req"
        " | full CPU us/req | CPU full/normal | errors |",
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for name, row in section["endpoints"].items():
        normal, full = row["normal"], row["full"]
        lines.append(
            f"| {name} | {_fmt(normal['rps'], 0)} | {_fmt(full['rps'], 0)}"
            f" | {_fmt(row['rps_full_over_normal'])} | {_fmt(normal['cpu_us_per_request'], 0)}"
            f" | {_fmt(full['cpu_us_per_request'], 0)} | {_fmt(row['cpu_full_over_normal'])}"
            f" | {normal['errors'] + full['errors']} |"
        )
    lines.append("")
