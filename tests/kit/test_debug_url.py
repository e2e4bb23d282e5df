"""``mb-oauth --debug login --no-browser``: the URL a person copies works.

Logs mask the authorization URL's ``state``; such a masked copy, on the same terminal as the
URL to open, looks just like it and fails the login (exit 6). Logs therefore show that URL
without its query: the first, and only, whole authorization URL a person sees is the one
to open, unmasked.
"""

from __future__ import annotations

import re
import sys

from tests.kit.cli_process import LoginProcess, headless_env
from tests.kit.helpers import http_get, query
from tests.kit.test_integration import driver

#: a whole authorization URL, as a person (or a script) would copy it from the terminal
URL = re.compile(r"https://\S+/oauth2/authorize\?\S*state=\S+")
DEBUG_CLI = [sys.executable, "-c", "from client_kit._cli import main; main()", "--debug"]


def test_the_first_authorization_url_on_a_debug_terminal_logs_in(ref_server, tmp_path) -> None:
    env = headless_env(ref_server, ref_server.loopback_app, tmp_path)
    login = LoginProcess(env, "--no-browser", "--timeout", "20", cli=DEBUG_CLI)
    try:
        login.authorization_url()  # the kit has announced it by now
        first = next(URL.search(line).group(0) for line in login.stderr_lines if URL.search(line))
        assert "*" not in query(first)["state"], first  # not masked
        http_get(driver(ref_server).authorize(first))
        code, _, stderr = login.finish()
    finally:
        login.kill()
    assert code == 0, stderr
    assert "HTTP Request: GET" in stderr  # --debug did log the authorization page's request
