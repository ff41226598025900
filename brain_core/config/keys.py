"""API keys: the OS keyring first, then an environment variable; never the settings file.

A key is stored under the service ``aida`` with the provider's name as the user name, so it shows
up as "aida / openai" in the system's password manager. The environment is read as
``AIDA_<PROVIDER>_API_KEY`` and then the conventional name (``OPENAI_API_KEY``,
``ANTHROPIC_API_KEY``), which is what containers and CI have. Tests select an in-memory keyring
with ``PYTHON_KEYRING_BACKEND``.
"""

from __future__ import annotations

import os
import re
from typing import Mapping

from brain_core.errors import BrainError, InvalidInput

SERVICE = "aida"
CONVENTIONAL_ENV = {"openai": "OPENAI_API_KEY", "anthropic": "ANTHROPIC_API_KEY"}
_NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")

NO_KEYRING = (
    "No OS keyring is available here ({why}), so nothing was stored; install and unlock one "
    "(GNOME Keyring or KWallet on Linux; macOS and Windows have one built in), or set {env} in the "
    "environment instead."
)


def env_names(provider: str) -> tuple[str, ...]:
    """The environment variables tried for ``provider``, in order."""
    own = f"AIDA_{provider.upper().replace('-', '_')}_API_KEY"
    conventional = CONVENTIONAL_ENV.get(provider)
    return (own, conventional) if conventional else (own,)


def _check(provider: str) -> str:
    p = (provider or "").strip().lower()
    if not _NAME.match(p):
        raise InvalidInput(f"{provider!r} is not a provider name; use a short lowercase name such as openai or anthropic.")
    return p


def get_key(provider: str, env: Mapping[str, str] | None = None) -> str | None:
    """The key for ``provider``, or ``None``. A missing or locked keyring falls through to the env."""
    return lookup(provider, env)[0]


def lookup(provider: str, env: Mapping[str, str] | None = None) -> tuple[str | None, str | None]:
    """``(key, where)``: where is ``"keyring"``, ``"env:NAME"`` or ``None`` (for ``aida doctor``)."""
    p = _check(provider)
    import keyring
    from keyring.errors import KeyringError

    try:
        secret = keyring.get_password(SERVICE, p)
    except KeyringError:  # NoKeyringError and locked or broken backends: the env still works
        secret = None
    if secret:
        return secret, "keyring"
    env = os.environ if env is None else env
    for name in env_names(p):
        value = env.get(name, "").strip()
        if value:
            return value, f"env:{name}"
    return None, None


def set_key(provider: str, secret: str) -> str:
    """Store ``secret`` for ``provider``; returns the keyring backend's name for the message."""
    p = _check(provider)
    secret = (secret or "").strip()
    if not secret:
        raise InvalidInput("The key was empty and nothing was stored; paste the key and press Enter.")
    if any(c.isspace() for c in secret):
        raise InvalidInput("The key contains whitespace, which no API key does; paste it again on one line.")
    import keyring
    from keyring.errors import KeyringError, NoKeyringError

    env = env_names(p)[0]
    try:
        keyring.set_password(SERVICE, p, secret)
        kept = keyring.get_password(SERVICE, p)
    except NoKeyringError as e:
        raise BrainError(NO_KEYRING.format(env=env, why=_why())) from e
    except KeyringError as e:
        raise BrainError(
            f"The OS keyring refused to store the {p} key ({e.__class__.__name__}); unlock it and try again, "
            f"or set {env} in the environment instead."
        ) from e
    if kept != secret:  # the null backend (and any broken one) says yes and keeps nothing
        raise BrainError(
            f"The keyring backend in use ({backend_name()}) does not keep keys, so the {p} key was not stored; "
            f"{_fix_backend()}install and unlock a real keyring (GNOME Keyring or KWallet on Linux), or set {env} "
            "in the environment instead."
        )
    return backend_name()


def _why() -> str:
    chosen = os.environ.get("PYTHON_KEYRING_BACKEND")
    return f"PYTHON_KEYRING_BACKEND chose {chosen}" if chosen else "keyring found no backend"


def _fix_backend() -> str:
    chosen = os.environ.get("PYTHON_KEYRING_BACKEND")
    return "unset PYTHON_KEYRING_BACKEND or " if chosen else ""


def delete_key(provider: str) -> bool:
    """Remove the stored key; ``False`` when there was none."""
    p = _check(provider)
    import keyring
    from keyring.errors import KeyringError, NoKeyringError, PasswordDeleteError

    try:
        keyring.delete_password(SERVICE, p)
    except PasswordDeleteError:
        return False
    except NoKeyringError as e:
        raise BrainError(NO_KEYRING.format(env=env_names(p)[0], why=_why()).replace(", so nothing was stored", "")) from e
    except KeyringError as e:
        raise BrainError(f"The OS keyring refused to delete the {p} key ({e.__class__.__name__}); unlock it and try again.") from e
    return True


def backend_name() -> str:
    """The keyring backend in use, as ``module.Class`` (what PYTHON_KEYRING_BACKEND would name)."""
    import keyring

    kr = keyring.get_keyring()
    return f"{kr.__class__.__module__}.{kr.__class__.__name__}"
