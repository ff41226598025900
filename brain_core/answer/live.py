"""Live sources: questions the brain cannot answer because the answer is out in the world right now.

Two pluggable HTTP sources, each behind :class:`LiveSource`:

- **weather**: Open-Meteo (no key). A place named in the question ("weather in Lisbon") is looked
  up with Open-Meteo's geocoder; otherwise ``live.weather.latitude``/``longitude`` are used.
  Settings: ``live.weather.url``, ``live.weather.geocode_url``, ``live.weather.place``,
  ``live.weather.units`` (``metric`` | ``imperial``).
- **news**: RSS or Atom feeds (``live.news.feeds``, BBC News by default); "news about X" uses
  ``live.news.search_url`` (a feed URL with ``{query}``, Google News search by default) and
  keeps only items that mention X.

``live.timeout`` and ``live.retries`` bound the wait. Offline or unreachable, the answer says so
and guesses nothing (``ok=False``).
"""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass
from typing import Any, Protocol
from xml.etree import ElementTree

from brain_core.errors import ProviderError
from brain_core.llm.factory import setting
from brain_core.llm.http import Retry, request

WEATHER_URL = "https://api.open-meteo.com/v1/forecast"
GEOCODE_URL = "https://geocoding-api.open-meteo.com/v1/search"
NEWS_FEEDS = ("https://feeds.bbci.co.uk/news/rss.xml",)
NEWS_SEARCH_URL = "https://news.google.com/rss/search?q={query}&hl=en-US&gl=US&ceid=US:en"

# WMO weather interpretation codes, as Open-Meteo reports them.
WMO = {
    0: "clear sky", 1: "mainly clear", 2: "partly cloudy", 3: "overcast", 45: "fog", 48: "rime fog",
    51: "light drizzle", 53: "drizzle", 55: "dense drizzle", 56: "freezing drizzle", 57: "freezing drizzle",
    61: "light rain", 63: "rain", 65: "heavy rain", 66: "freezing rain", 67: "freezing rain",
    71: "light snow", 73: "snow", 75: "heavy snow", 77: "snow grains", 80: "light showers", 81: "showers",
    82: "violent showers", 85: "snow showers", 86: "heavy snow showers", 95: "thunderstorm",
    96: "thunderstorm with hail", 99: "thunderstorm with heavy hail",
}
_PLACE = re.compile(
    r"\b(?:in|for|at|around)\s+([A-Za-zÀ-ÿ][\w'.-]*(?:[ -][A-Za-zÀ-ÿ][\w'.-]*){0,3}?)"
    r"(?=\s+(?:today|tomorrow|tonight|this|right|now|next|later|at|on)\b|\s*[?.!,]|\s*$)",
    re.IGNORECASE,
)
_NOT_PLACES = frozenset("the a an my our this that today tomorrow tonight now general weekend week morning evening afternoon".split())
_TOPIC = re.compile(r"\bnews\s+(?:about|on|regarding|from|for)\s+(?:the\s+)?(.+?)\s*[?.!]*$", re.IGNORECASE)


@dataclass(frozen=True)
class LiveAnswer:
    """What a live source said. ``ok=False`` means it could not be reached: ``text`` says so."""

    source: str
    ok: bool
    text: str
    url: str = ""
    items: tuple[dict, ...] = ()

    def to_json(self) -> dict[str, Any]:
        return {"source": self.source, "ok": self.ok, "text": self.text, "url": self.url, "items": list(self.items)}


class LiveSource(Protocol):
    @property
    def name(self) -> str: ...  # read-only: the sources are frozen dataclasses

    def fetch(self, question: str) -> LiveAnswer: ...


@dataclass(frozen=True)
class Weather:
    url: str = WEATHER_URL
    geocode_url: str = GEOCODE_URL
    latitude: float | None = None
    longitude: float | None = None
    place: str = ""
    units: str = "metric"
    retry: Retry = Retry(timeout=8.0, retries=1)
    name: str = "weather"

    def fetch(self, question: str) -> LiveAnswer:
        asked = place_in(question)
        if asked:
            lat, lon, label = self._geocode(asked)
        elif self.latitude is not None and self.longitude is not None:
            lat, lon, label = float(self.latitude), float(self.longitude), self.place or f"{self.latitude},{self.longitude}"
        else:
            return LiveAnswer(self.name, False, "I don't know where you are, so I can't say what the weather is; ask "
                              "'weather in <city>' or set live.weather.latitude and live.weather.longitude.")
        params = {
            "latitude": f"{lat:.4f}", "longitude": f"{lon:.4f}", "timezone": "auto", "forecast_days": "3",
            "current": "temperature_2m,apparent_temperature,precipitation,weather_code,wind_speed_10m",
            "daily": "weather_code,temperature_2m_max,temperature_2m_min,precipitation_probability_max",
        }
        if self.units == "imperial":
            params.update(temperature_unit="fahrenheit", wind_speed_unit="mph", precipitation_unit="inch")
        url = _with_query(self.url, params)
        data = request("GET", url, service="The weather source", retry=self.retry).json("The weather source", url)
        return LiveAnswer(self.name, True, describe_weather(label, data), url)

    def _geocode(self, place: str) -> tuple[float, float, str]:
        url = _with_query(self.geocode_url, {"name": place, "count": "1", "language": "en", "format": "json"})
        data = request("GET", url, service="The weather geocoder", retry=self.retry).json("The weather geocoder", url)
        results = data.get("results") if isinstance(data, dict) else None
        if not results or not isinstance(results[0], dict) or "latitude" not in results[0]:
            raise ProviderError(f"The weather geocoder does not know a place called {place!r}; check the spelling.")
        top = results[0]
        label = ", ".join(str(top[k]) for k in ("name", "country") if top.get(k)) or place
        return float(top["latitude"]), float(top["longitude"]), label


def describe_weather(label: str, data: Any) -> str:
    """One short paragraph from an Open-Meteo forecast answer."""
    if not isinstance(data, dict) or not isinstance(data.get("current"), dict):
        raise ProviderError("The weather source answered without current conditions; check live.weather.url.")
    cur, units = data["current"], data.get("current_units") or {}
    t_unit = units.get("temperature_2m", "°C")
    parts = [f"{label}: now {cur.get('temperature_2m')}{t_unit}"]
    if cur.get("weather_code") is not None:
        parts[0] += f", {WMO.get(int(cur['weather_code']), 'code ' + str(cur['weather_code']))}"
    if cur.get("wind_speed_10m") is not None:
        parts[0] += f", wind {cur['wind_speed_10m']} {units.get('wind_speed_10m', 'km/h')}"
    daily = data.get("daily") or {}
    days = daily.get("time") or []
    for i, name in zip(range(min(2, len(days))), ("Today", "Tomorrow")):
        lo, hi = _at(daily, "temperature_2m_min", i), _at(daily, "temperature_2m_max", i)
        code, rain = _at(daily, "weather_code", i), _at(daily, "precipitation_probability_max", i)
        line = f"{name} {lo}–{hi}{t_unit}"
        if code is not None:
            line += f", {WMO.get(int(code), 'code ' + str(code))}"
        if rain is not None:
            line += f", chance of rain {rain}%"
        parts.append(line)
    return ". ".join(parts) + ". (Open-Meteo)"


@dataclass(frozen=True)
class News:
    feeds: tuple[str, ...] = NEWS_FEEDS
    search_url: str = NEWS_SEARCH_URL
    limit: int = 5
    retry: Retry = Retry(timeout=8.0, retries=1)
    name: str = "news"

    def fetch(self, question: str) -> LiveAnswer:
        topic = topic_in(question)
        urls = [self.search_url.replace("{query}", urllib.parse.quote_plus(topic))] if topic and self.search_url else list(self.feeds)
        items: list[dict] = []
        errors: list[str] = []
        for url in urls:
            try:
                body = request("GET", url, service="The news feed", retry=self.retry).body
                items.extend(parse_feed(body, url))
            except ProviderError as e:
                errors.append(str(e))
        if not items and errors:
            raise ProviderError(errors[0])
        if topic:
            words = [w for w in re.findall(r"\w+", topic.lower()) if len(w) > 2] or [topic.lower()]
            items = [it for it in items if any(w in (it["title"] + " " + it.get("summary", "")).lower() for w in words)]
        items = items[: self.limit]
        if not items:
            what = f" about {topic}" if topic else ""
            return LiveAnswer(self.name, True, f"The news feeds have no headlines{what} right now.", urls[0])
        lines = [f"- {it['title']}" + (f" ({it['date']})" if it.get("date") else "") for it in items]
        head = f"Headlines about {topic}:" if topic else "Headlines:"
        return LiveAnswer(self.name, True, head + "\n" + "\n".join(lines), urls[0], tuple(items))


def parse_feed(body: bytes, url: str = "") -> list[dict]:
    """Items of an RSS 2.0 or Atom feed as ``{"title", "link", "date", "summary"}``."""
    try:
        root = ElementTree.fromstring(body)
    except ElementTree.ParseError as e:
        raise ProviderError(f"The news feed at {url} is not valid RSS or Atom ({e}); check live.news.feeds.") from e
    atom = "{http://www.w3.org/2005/Atom}"
    out = []
    for item in root.iter("item"):
        out.append({"title": _text(item, "title"), "link": _text(item, "link"),
                    "date": _text(item, "pubDate"), "summary": _text(item, "description")})
    for entry in root.iter(f"{atom}entry"):
        link = entry.find(f"{atom}link")
        out.append({"title": _text(entry, f"{atom}title"), "link": link.get("href", "") if link is not None else "",
                    "date": _text(entry, f"{atom}updated"), "summary": _text(entry, f"{atom}summary")})
    return [it for it in out if it["title"]]


def place_in(question: str) -> str | None:
    for m in _PLACE.finditer(question or ""):
        place = m.group(1).strip(" .'-")
        if place and place.split()[0].lower() not in _NOT_PLACES:
            return place
    return None


def topic_in(question: str) -> str | None:
    m = _TOPIC.search(" ".join((question or "").split()))
    return m.group(1).strip() if m else None


def make_live_source(kind: str, config: Any = None) -> LiveSource:
    retry = Retry(timeout=float(setting(config, "live.timeout", 8.0)), retries=int(setting(config, "live.retries", 1)))
    if kind == "weather":
        lat, lon = setting(config, "live.weather.latitude", None), setting(config, "live.weather.longitude", None)
        return Weather(
            url=str(setting(config, "live.weather.url", WEATHER_URL)),
            geocode_url=str(setting(config, "live.weather.geocode_url", GEOCODE_URL)),
            latitude=float(lat) if lat is not None else None,
            longitude=float(lon) if lon is not None else None,
            place=str(setting(config, "live.weather.place", "")),
            units=str(setting(config, "live.weather.units", "metric")),
            retry=retry,
        )
    if kind == "news":
        feeds = setting(config, "live.news.feeds", list(NEWS_FEEDS))
        feeds = (feeds,) if isinstance(feeds, str) else tuple(str(f) for f in feeds)
        return News(feeds=feeds, search_url=str(setting(config, "live.news.search_url", NEWS_SEARCH_URL) or ""), retry=retry)
    raise ProviderError(f"There is no live source called {kind!r}; the router knows news and weather.")


def answer_live(kind: str, question: str, config: Any = None, source: LiveSource | None = None) -> LiveAnswer:
    """Ask the live source; unreachable or broken, say so plainly (``ok=False``), never guess."""
    src = source or make_live_source(kind, config)
    try:
        return src.fetch(question)
    except ProviderError as e:
        return LiveAnswer(kind, False, f"I could not get the {kind}, so I won't guess: {e}")


def _with_query(url: str, params: dict[str, str]) -> str:
    return url + ("&" if "?" in url else "?") + urllib.parse.urlencode(params)


def _at(daily: dict, key: str, i: int) -> Any:
    values = daily.get(key)
    return values[i] if isinstance(values, list) and i < len(values) else None


def _text(node: ElementTree.Element, tag: str) -> str:
    child = node.find(tag)
    return " ".join((child.text or "").split()) if child is not None and child.text else ""
