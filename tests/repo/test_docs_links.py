"""Every link in the README and docs/ resolves inside the repository (a fresh clone has nothing else)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.helpers.paths import REPO

ROOT = REPO
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(<?([^)\s>]+)>?\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lowercase, punctuation dropped, spaces to hyphens."""
    out = set()
    for line in FENCE.sub("", path.read_text(encoding="utf-8")).splitlines():
        m = re.match(r"#{1,6}\s+(.*)", line)
        if m:
            text = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower())
            out.add(text.replace(" ", "-"))
    return out


def links(path: Path):
    text = FENCE.sub("", path.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)
    return LINK.findall(text)


CASES = [(doc, target) for doc in DOCS for target in links(doc)]


def test_the_docs_have_links():
    assert any(t == "docs/DESIGN.md" for d, t in CASES if d.name == "README.md")


@pytest.mark.parametrize("doc,target", CASES, ids=[f"{d.relative_to(ROOT)}->{t}" for d, t in CASES])
def test_link_resolves_inside_the_repository(doc, target):
    if re.match(r"^[a-z]+://", target) or target.startswith("mailto:"):
        return  # a web page, not a file this repository must carry
    file_part, _, anchor = target.partition("#")
    dest = (doc.parent / file_part).resolve() if file_part else doc
    assert dest.is_relative_to(ROOT), f"{doc.name} links outside the repository: {target}"
    assert dest.exists(), f"{doc.name} links to {target}, which does not exist"
    if anchor and dest.suffix == ".md":
        assert anchor in anchors(dest), f"{doc.name} links to #{anchor}, which {dest.name} has no heading for"


def test_the_checker_sees_a_broken_link(tmp_path):
    page = tmp_path / "x.md"
    page.write_text("# Title\n\nSee [the design](../shared/DESIGN.md) and [here](#nowhere).\n")
    assert links(page) == ["../shared/DESIGN.md", "#nowhere"]
    assert "nowhere" not in anchors(page) and "title" in anchors(page)


def test_the_locomo_benchmark_without_its_data_says_where_it_comes_from(tmp_path, capsys):
    import importlib.util

    spec = importlib.util.spec_from_file_location("locomo_bench", ROOT / "benchmarks" / "locomo.py")
    locomo = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(locomo)
    assert locomo.main(["--data", str(tmp_path / "absent.json")]) == 2
    err = capsys.readouterr().err
    for words in ("snap-research/LoCoMo", "data/locomo10.json", "CC BY-NC 4.0", "--data", str(tmp_path)):
        assert words in err, words
