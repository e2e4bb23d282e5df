"""A local certificate authority and a server certificate, made on first start.

ECDSA P-256: the cheapest TLS handshake for the server (a new connection costs uvicorn about
0.5 ms of CPU with it and nearly twice that with RSA-2048; many clients connect per request).
"""

from __future__ import annotations

import datetime
import ipaddress
import os
import ssl
from dataclasses import dataclass
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

CA_FILE, CA_KEY_FILE = "ca.pem", "ca-key.pem"
CERT_FILE, KEY_FILE = "server.pem", "server-key.pem"


class TlsError(Exception):
    """A certificate or key the server cannot use; the message says which file and why."""


@dataclass(frozen=True)
class TlsFiles:
    cert: Path
    key: Path
    ca: Path | None  # None when the operator brought their own certificate


def _write_private(path: Path, data: bytes) -> None:
    """Write a key readable by its owner only, atomically."""
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
    tmp.replace(path)


def _write_public(path: Path, data: bytes) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_bytes(data)
    tmp.replace(path)


def _key_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    )


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "mb-oauth reference server"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _now() -> datetime.datetime:
    return datetime.datetime.now(datetime.UTC)


def _make_ca(data_dir: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    key = ec.generate_private_key(ec.SECP256R1())
    name = _name("mb-oauth local CA")
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - datetime.timedelta(hours=1))
        .not_valid_after(_now() + datetime.timedelta(days=3650))
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(
            x509.KeyUsage(
                digital_signature=False,
                content_commitment=False,
                key_encipherment=False,
                data_encipherment=False,
                key_agreement=False,
                key_cert_sign=True,  # a CA: it signs the server's certificate
                crl_sign=True,
                encipher_only=False,
                decipher_only=False,
            ),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), False)
        .sign(key, hashes.SHA256())
    )
    _write_private(data_dir / CA_KEY_FILE, _key_pem(key))
    _write_public(data_dir / CA_FILE, cert.public_bytes(serialization.Encoding.PEM))
    return cert, key


def _load_ca(data_dir: Path) -> tuple[x509.Certificate, ec.EllipticCurvePrivateKey]:
    try:
        cert = x509.load_pem_x509_certificate((data_dir / CA_FILE).read_bytes())
        key = serialization.load_pem_private_key((data_dir / CA_KEY_FILE).read_bytes(), None)
    except (OSError, ValueError, TypeError) as error:
        raise TlsError(
            f"the local CA ({data_dir / CA_FILE}, {data_dir / CA_KEY_FILE}) cannot be read: "
            f"{error}. Delete both files to make a new CA (clients must then trust the new "
            "one)."
        ) from None
    if not isinstance(key, ec.EllipticCurvePrivateKey):
        raise TlsError(f"{data_dir / CA_KEY_FILE} is not the CA's ECDSA key")
    return cert, key


def _alt_names(host: str) -> list[x509.GeneralName]:
    names: list[x509.GeneralName] = [
        x509.DNSName("localhost"),
        x509.IPAddress(ipaddress.ip_address("127.0.0.1")),
        x509.IPAddress(ipaddress.ip_address("::1")),
    ]
    try:
        address = ipaddress.ip_address(host)
        if not address.is_unspecified:
            names.append(x509.IPAddress(address))
    except ValueError:
        names.append(x509.DNSName(host))
    unique: dict[str, x509.GeneralName] = {repr(n): n for n in names}
    return list(unique.values())


def _covers(cert_path: Path, host: str) -> bool:
    if not cert_path.exists():
        return False
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except ValueError:
        return False  # damaged: made anew from the CA
    if cert.not_valid_after_utc < _now() + datetime.timedelta(days=1):
        return False
    present = cert.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    return all(name in present for name in _alt_names(host))


def _make_server_cert(data_dir: Path, host: str) -> None:
    ca_cert, ca_key = _load_ca(data_dir)
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(_name(host))
        .issuer_name(ca_cert.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_now() - datetime.timedelta(hours=1))
        .not_valid_after(_now() + datetime.timedelta(days=825))
        .add_extension(x509.SubjectAlternativeName(_alt_names(host)), critical=False)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .sign(ca_key, hashes.SHA256())
    )
    _write_private(data_dir / KEY_FILE, _key_pem(key))
    _write_public(data_dir / CERT_FILE, cert.public_bytes(serialization.Encoding.PEM))


def ensure_certificates(data_dir: Path, host: str) -> TlsFiles:
    """The CA and a server certificate covering `host`, made or renewed when needed."""
    if not (data_dir / CA_FILE).exists() or not (data_dir / CA_KEY_FILE).exists():
        _make_ca(data_dir)
    if not _covers(data_dir / CERT_FILE, host):
        _make_server_cert(data_dir, host)
    return TlsFiles(data_dir / CERT_FILE, data_dir / KEY_FILE, data_dir / CA_FILE)


def check_pair(cert: Path, key: Path) -> None:
    """Refuse, with a reason, a certificate and key that TLS could not serve.

    Checked before the server binds its port, so that a bad file is reported as what it is
    (not as "cannot listen"), and never by a worker that dies at its first handshake.
    """
    try:
        leaf = x509.load_pem_x509_certificates(cert.read_bytes())[0]
    except OSError as error:
        raise TlsError(f"cannot read the certificate {cert}: {error.strerror}") from None
    except ValueError:
        raise TlsError(f"{cert} is not a PEM certificate") from None
    if leaf.not_valid_after_utc < _now():
        raise TlsError(f"the certificate {cert} expired on {leaf.not_valid_after_utc:%Y-%m-%d}")
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    try:
        context.load_cert_chain(cert, key, password=lambda: b"")
    except OSError as error:  # ssl.SSLError included
        reason = getattr(error, "reason", None) or error.strerror or str(error)
        raise TlsError(
            f"the key {key} cannot be used with the certificate {cert} ({reason}): it must be "
            "the certificate's own private key, in PEM, without a passphrase"
        ) from None


def server_context(cert: Path, key: Path) -> ssl.SSLContext:
    """The server's TLS settings: TLS 1.2 or newer, Python's cipher choice (forward secrecy,
    AEAD only), no client certificates. Made in each worker (tlsgate.py)."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    context.load_cert_chain(cert, key)
    return context
