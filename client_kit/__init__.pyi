# The public API of client_kit, declared once: type checkers read this file, and
# client_kit/__init__.py reads it at run time to import each name on first use. Every module
# whose name begins with "_" is internal. One line each: what the name is for.

from . import broker as broker  # the reference token broker: broker.create_app(...)
from . import private_files as private_files  # 0600 files in 0700 folders, no links (shared)
from . import profiles as profiles  # where a service lives: musicbrainz(), metabrainz(), custom()
from . import redaction as redaction  # the masker of secrets that the suite shares (Redactor)
from . import testing as testing  # plays the user on the bundled server's pages, in app tests
from ._auth import BearerAuth as BearerAuth  # the httpx.Auth of session.auth()
from ._authorization import AuthorizationRequest as AuthorizationRequest  # a begun login
from ._desktop import DesktopLogin as DesktopLogin  # what login() shows on a UserInterface
from ._errors import AccessDenied as AccessDenied
from ._errors import AuthorizationError as AuthorizationError
from ._errors import CertificateRejected as CertificateRejected
from ._errors import ClientRejected as ClientRejected
from ._errors import ConfigurationError as ConfigurationError
from ._errors import InsecureTransportError as InsecureTransportError
from ._errors import InvalidRequest as InvalidRequest
from ._errors import InvalidScope as InvalidScope
from ._errors import KeyringFailure as KeyringFailure
from ._errors import KeyringTimeout as KeyringTimeout
from ._errors import KitError as KitError  # the base of every error the kit raises
from ._errors import LoginCancelled as LoginCancelled
from ._errors import LoginIntercepted as LoginIntercepted
from ._errors import LoginRequired as LoginRequired
from ._errors import LoginTimeout as LoginTimeout
from ._errors import NoKeyringBackend as NoKeyringBackend
from ._errors import NotLoggedIn as NotLoggedIn
from ._errors import PortUnavailable as PortUnavailable
from ._errors import ProtocolError as ProtocolError
from ._errors import RefreshTokenRejected as RefreshTokenRejected
from ._errors import ServerUnavailable as ServerUnavailable
from ._errors import StateMismatch as StateMismatch
from ._errors import StorageError as StorageError
from ._errors import TemporaryFailure as TemporaryFailure
from ._errors import UnauthorizedClient as UnauthorizedClient
from ._errors import UnexpectedAnswer as UnexpectedAnswer
from ._errors import UnsupportedResponseType as UnsupportedResponseType
from ._flow import LoginEvent as LoginEvent  # one step of a login, as data
from ._handle import LoginHandle as LoginHandle  # a login beside a GUI's event loop
from ._keyring_store import KeyringStore as KeyringStore  # the system keyring (the default)
from ._pages import LoopbackPages as LoopbackPages  # the app's page after the loopback login
from ._session import Session as Session  # one user's login to one service: the facade
from ._status import LoginStatus as LoginStatus  # who is logged in, until when (no secrets)
from ._storage import FileStore as FileStore  # tokens in a private folder, one file each
from ._storage import MemoryStore as MemoryStore  # tokens for this process only
from ._storage import StoreKey as StoreKey  # service, client id and account of a login
from ._storage import TokenStore as TokenStore  # what a store of your own provides
from ._tokens import TokenSet as TokenSet  # the tokens of a grant, and the granted scopes
from ._ui import Console as Console  # the terminal as a UserInterface (stderr, stdin)
from ._ui import UserInterface as UserInterface  # what a login needs from the person's side
from .profiles import Profile as Profile  # a service's addresses and rules
