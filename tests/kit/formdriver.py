"""Plays the user in the bundled server's web pages with plain HTTP: log in, then consent."""

from __future__ import annotations

import html
import re
import ssl
from urllib.parse import urljoin

import httpx

_FORM = re.compile(r'<form[^>]*id="(?P<id>[^"]+)"[^>]*>(?P<body>.*?)</form>', re.S)
_ACTION = re.compile(r'<form[^>]*id="{id}"[^>]*action="(?P<action>[^"]*)"', re.S)
_HIDDEN = re.compile(r'<input[^>]*type="hidden"[^>]*name="(?P<n>[^"]+)"[^>]*value="(?P<v>[^"]*)"')


class FormDriver:
    """Follows the authorization URL until the service redirects away from itself."""

    def __init__(self, base_url: str, ca_file: str, username: str, password: str) -> None:
        self.base_url = base_url
        self.username = username
        self.password = password
        self.http = httpx.Client(verify=ssl.create_default_context(cafile=ca_file))

    def close(self) -> None:
        self.http.close()

    def authorize(self, url: str, decision: str = "approve") -> httpx.Response | str:
        """Returns the redirect target outside the service, or the final page's response."""
        response = self.http.get(url)
        for _ in range(12):
            if response.is_redirect:
                target = urljoin(str(response.url), response.headers["location"])
                if not target.startswith(self.base_url):
                    return target
                response = self.http.get(target)
                continue
            forms = {m["id"]: m for m in _FORM.finditer(response.text)}
            if "login-form" in forms:
                response = self._submit(
                    response,
                    forms["login-form"],
                    "login-form",
                    {"username": self.username, "password": self.password},
                )
            elif "consent-form" in forms:
                response = self._submit(
                    response, forms["consent-form"], "consent-form", {"decision": decision}
                )
            else:
                return response
        raise AssertionError("too many steps in the authorization pages")

    def _submit(
        self, response: httpx.Response, form: re.Match[str], form_id: str, fields: dict[str, str]
    ) -> httpx.Response:
        data = {m["n"]: html.unescape(m["v"]) for m in _HIDDEN.finditer(form["body"])}
        data.update(fields)
        action = _ACTION.pattern.format(id=form_id)
        found = re.search(action, response.text, re.S)
        target = (
            urljoin(str(response.url), html.unescape(found["action"]))
            if found
            else str(response.url)
        )
        return self.http.post(target, data=data)


def oob_code(page: httpx.Response) -> str:
    found = re.search(r'<code[^>]*id="oob-code"[^>]*>([^<]+)</code>', page.text)
    assert found, page.text[:2000]
    return html.unescape(found.group(1)).strip()
