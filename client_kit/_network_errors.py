"""What went wrong on the way to the service (or the broker), in words a person can act on.

A network problem is temporary and keeps the tokens; each message names who could not be
reached and at which address, and says what is likely: a refused connection (nothing runs
there), a name that does not resolve, a timeout. Only a certificate that fails verification
speaks of CA bundles: it is a configuration error (retrying will not help), reported as the
certificate of whoever presented it, the service's or the broker's.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from client_kit import _logs
from client_kit._errors import CertificateRejected, KitError, TemporaryFailure
from client_kit._safe_text import clean

#: how many causes of an exception are looked through
_DEPTH = 10


def where(url: object) -> str:
    """The address of a request without its query (which may carry a ``state``)."""
    parts = urlsplit(str(url))
    return f"{parts.scheme}://{parts.netloc}{parts.path}"


def transport_failure(exc: Exception, party: str = "the service", url: object = None) -> KitError:
    """The kit's error for a request to ``url`` that failed in the network or TLS."""
    import socket
    import ssl

    import httpx

    address = where(url) if url is not None else _url_of(exc)
    at = f"{party} at {address}" if address else party
    if _certificate_failed(exc):
        broker = party == "the broker"
        return CertificateRejected(
            f"{party}'s TLS certificate failed verification at {address or 'its address'} "
            f"({_reason(exc)}); check the URL, the system clock and "
            + ("the broker's CA bundle" if broker else "the CA bundle"),
            setting="broker_ca_bundle" if broker else "ca_bundle",
        )
    if _caused_by(exc, ConnectionRefusedError) or "refused" in str(exc).lower():
        problem = "the connection was refused (is it running, at that address and port?)"
    elif _caused_by(exc, socket.gaierror) or "name or service not known" in str(exc).lower():
        problem = "its host name cannot be resolved (check the URL and the network)"
    elif isinstance(exc, httpx.TimeoutException):
        problem = f"it did not answer in time ({type(exc).__name__})"
    elif _caused_by(exc, ssl.SSLError):
        problem = f"TLS failed ({_text(exc)}; is that an https:// address?)"
    else:
        problem = f"{type(exc).__name__}: {_text(exc)} (check the network and the proxy)"
    return TemporaryFailure(f"cannot reach {at}: {problem}; tokens are kept, try again later")


def _url_of(exc: Exception) -> str:
    try:
        return where(exc.request.url)  # type: ignore[attr-defined]
    except (AttributeError, RuntimeError):  # httpx raises RuntimeError when none was set
        return ""


def _text(exc: BaseException) -> str:
    return clean(_logs.redact(str(exc)) or type(exc).__name__, 200)


def _causes(exc: BaseException | None) -> list[BaseException]:
    found: list[BaseException] = []
    while exc is not None and len(found) < _DEPTH:
        found.append(exc)
        exc = exc.__cause__ or exc.__context__
    return found


def _caused_by(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` or one of its causes is a ``kind``."""
    return any(isinstance(cause, kind) for cause in _causes(exc))


def _certificate_failed(exc: BaseException) -> bool:
    import ssl

    return any(
        isinstance(cause, ssl.SSLCertVerificationError) or "CERTIFICATE_VERIFY_FAILED" in str(cause)
        for cause in _causes(exc)
    )


def _reason(exc: BaseException) -> str:
    text = _logs.redact(str(exc))
    marker = "certificate verify failed:"
    if marker in text:
        text = text.split(marker, 1)[1].split("(_ssl")[0].strip(" )")
    return clean(text or type(exc).__name__, 200)
