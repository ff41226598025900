"""HTTP for providers and live sources: stdlib ``urllib``, timeouts, retries with backoff.

One place decides what is worth retrying (no answer, a timeout, 429 and 5xx) and what is not
(a refused key, a bad request, an answer that is not JSON), so every provider fails the same way:
a :class:`ProviderError` whose one sentence names the service, the URL and what to do.
"""

from __future__ import annotations

import json as jsonlib
import socket
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Callable

from brain_core.errors import ProviderError
from brain_core.llm.base import Completion, strip_fences

USER_AGENT = "aida/0.1 (personal memory)"


@dataclass(frozen=True)
class Retry:
    """How hard to try: ``retries`` extra attempts, sleeping ``backoff * 2**n`` seconds between."""

    timeout: float = 30.0
    retries: int = 2
    backoff: float = 0.5
    sleep: Callable[[float], None] = time.sleep


@dataclass(frozen=True)
class Response:
    status: int
    body: bytes
    attempts: int
    elapsed_s: float

    def json(self, service: str, url: str) -> Any:
        try:
            return jsonlib.loads(self.body.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as e:
            raise ProviderError(
                f"{service} at {url} answered something that is not JSON ({e.__class__.__name__}); "
                "check that the URL points at the right kind of server."
            ) from e


class _Retryable(Exception):
    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def request(
    method: str,
    url: str,
    *,
    service: str,
    headers: dict[str, str] | None = None,
    payload: Any = None,
    retry: Retry = Retry(),
) -> Response:
    """Send one request, retrying transient failures; raise :class:`ProviderError` when it gives up."""
    data = None
    hdrs = {"User-Agent": USER_AGENT, "Accept": "application/json, application/xml;q=0.9, */*;q=0.5"}
    if payload is not None:
        data = jsonlib.dumps(payload).encode("utf-8")
        hdrs["Content-Type"] = "application/json"
    hdrs.update(headers or {})
    start = time.monotonic()
    attempts = 0
    last = ""
    for attempt in range(max(0, retry.retries) + 1):
        attempts = attempt + 1
        if attempt:
            retry.sleep(retry.backoff * (2 ** (attempt - 1)))
        try:
            status, body = _once(method, url, hdrs, data, retry.timeout, service)
            return Response(status, body, attempts, time.monotonic() - start)
        except _Retryable as e:
            last = e.reason
    raise ProviderError(
        f"{service} at {url} {last} after {attempts} {'try' if attempts == 1 else 'tries'}; "
        "check that it is running and reachable, or raise the timeout in the settings."
    )


def _once(method: str, url: str, headers: dict, data: bytes | None, timeout: float, service: str) -> tuple[int, bytes]:
    req = urllib.request.Request(url, data=data, headers=headers, method=method)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, resp.read()
    except urllib.error.HTTPError as e:
        detail = _error_detail(e)
        if e.code == 429 or e.code >= 500:
            raise _Retryable(f"answered HTTP {e.code}{detail}") from e
        if e.code in (401, 403):
            raise ProviderError(
                f"{service} at {url} refused the API key (HTTP {e.code}{detail}); "
                "store a valid one with `aida config set-key`."
            ) from e
        raise ProviderError(
            f"{service} at {url} refused the request (HTTP {e.code}{detail}); check the model name and URL in the settings."
        ) from e
    except (socket.timeout, TimeoutError) as e:
        raise _Retryable(f"did not answer within {timeout:g}s") from e
    except urllib.error.URLError as e:
        reason = e.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            raise _Retryable(f"did not answer within {timeout:g}s") from e
        raise _Retryable(f"could not be reached ({reason})") from e
    except (ConnectionError, OSError) as e:
        raise _Retryable(f"could not be reached ({e.__class__.__name__})") from e
    except ValueError as e:  # urllib refuses a malformed URL with ValueError
        raise ProviderError(f"{service} URL {url!r} is not a valid URL; fix it in the settings.") from e


def _error_detail(e: urllib.error.HTTPError) -> str:
    """A short quote of the server's own error message, which usually says what is wrong."""
    try:
        raw = e.read(2000).decode("utf-8", "replace")
    except OSError:
        return ""
    msg = ""
    try:
        obj = jsonlib.loads(raw)
        err = obj.get("error") if isinstance(obj, dict) else None
        if isinstance(err, dict):
            msg = str(err.get("message") or "")
        elif isinstance(err, str):
            msg = err
    except ValueError:
        msg = raw
    msg = " ".join(msg.split())[:160]
    return f": {msg}" if msg else ""


def complete_json(url: str, *, service: str, headers: dict[str, str], payload: dict, retry: Retry, model: str,
                  text_of: Callable[[Any], str | None], missing: str, token_fields: tuple[str, str],
                  json: bool) -> Completion:
    """POST a completion request and read the answer: the text (``text_of`` finds it in the JSON, or
    it is missing and ``missing`` says what to check), the model and the usage the server reported
    under ``token_fields`` (input, output). ``json=True`` strips a code fence around the text."""
    resp = request("POST", url, service=service, headers=headers, payload=payload, retry=retry)
    obj = resp.json(service, url)
    text = text_of(obj)
    if text is None:
        raise ProviderError(f"{service} at {url} answered JSON without {missing}.")
    usage = obj.get("usage") if isinstance(obj.get("usage"), dict) else {}
    return Completion(
        text=strip_fences(text) if json else text.strip(),
        model=str(obj.get("model") or model),
        input_tokens=_int(usage.get(token_fields[0])),
        output_tokens=_int(usage.get(token_fields[1])),
        elapsed_s=resp.elapsed_s,
        attempts=resp.attempts,
    )


def _int(v: object) -> int | None:
    return v if isinstance(v, int) and not isinstance(v, bool) else None
