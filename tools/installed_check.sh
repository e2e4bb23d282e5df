#!/usr/bin/env bash
# What a pip user gets: build the wheel from the checkout's files, install it with its extras
# in a fresh virtual environment, and from a folder outside the checkout run the installed
# `mb-oauth-server` (serve, answer over TLS, stop) and the whole suite (`mb-oauth-conformance`
# against the bundled server it starts). Every test and `make test` use an editable install,
# which hides a package missing from pyproject.toml; this does not.
#   tools/installed_check.sh [python]     (default: python3; CI passes Debian's own)
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
python=${1:-python3}
work=$(mktemp -d)
trap 'kill "${server_pid:-}" 2>/dev/null || true; rm -rf "$work"' EXIT

echo "== building the wheel from a copy of the checkout's files"
mkdir "$work/source"
(cd "$repo" && git ls-files --cached --others --exclude-standard -z \
  | xargs -0 -I{} cp --parents {} "$work/source/" 2>/dev/null || true)
"$python" -m venv "$work/venv"
pip=("$work/venv/bin/python" -m pip --quiet --disable-pip-version-check)
"${pip[@]}" install --upgrade pip
"${pip[@]}" wheel --no-deps --wheel-dir "$work/dist" "$work/source"
wheel=$(ls "$work"/dist/mb_oauth-*.whl)
echo "== installing $(basename "$wheel")[server,suite] in a fresh venv"
"${pip[@]}" install -c "$repo/constraints.txt" "$wheel[server,suite]"

outside="$work/elsewhere"
mkdir "$outside"
cd "$outside"
export PATH="$work/venv/bin:$PATH"

echo "== mb-oauth-server run, from $outside"
port=$("$work/venv/bin/python" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mb-oauth-server run --data-dir data --port "$port" >server.log 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  grep -q "^Serving https://" server.log 2>/dev/null && break
  kill -0 "$server_pid" 2>/dev/null || { cat server.log; echo "mb-oauth-server died"; exit 1; }
  sleep 0.2
done
status=$(curl -sS -o /dev/null -w '%{http_code}' --cacert data/ca.pem "https://127.0.0.1:$port/login")
[ "$status" = 200 ] || { cat server.log; echo "GET /login answered $status"; exit 1; }
echo "GET https://127.0.0.1:$port/login over verified TLS: 200"
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true; server_pid=

echo "== mb-oauth-conformance (the whole suite against the bundled server), from $outside"
mb-oauth-conformance
test -f reports/verdicts.json
echo "The installed copy ran the server and the whole suite."
