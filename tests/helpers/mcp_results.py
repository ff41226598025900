"""What a tool call over MCP returned, as the tests read it."""

from __future__ import annotations

import json


def payload(result):
    """A tool's answer: its structured content (unwrapped from ``{"result": ...}``), else its JSON text."""
    assert not result.is_error, result.content
    if result.structured_content is not None:
        data = result.structured_content
        return data.get("result", data) if isinstance(data, dict) and set(data) == {"result"} else data
    return json.loads(result.content[0].text)
