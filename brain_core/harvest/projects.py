"""The project of a folder: the name harvest tags a session's records with (``project:<name>``).

One definition for every door: :func:`project_of` runs the harvester's own naming
(:func:`brain_core.harvest.privacy.project_name`: the git top-level's main checkout, else the
folder, never a worktree holder or a home folder) and its tag spelling
(:func:`brain_core.harvest.model_answer.base_tags`), so a record harvested from a session in a folder
carries the tag that recall, ask and the session-start block look for when run in that folder.
"""

from __future__ import annotations

import os
import re

from brain_core.recall.projects import DEFAULT_BOOST, PREFIX, boost, has_project, tag  # noqa: F401 - one place for the tag
from brain_core.text.slug import kebab

_NAME = re.compile(r"^[a-z0-9][a-z0-9-]{0,39}$")


def project_of(folder: str | os.PathLike | None) -> str | None:
    """The project name of ``folder`` as harvest tags it (``billing`` for ``project:billing``), or None."""
    if not folder:
        return None
    from brain_core.harvest.privacy import leaks, project_name

    name = project_name(str(folder))
    if not name or leaks(name):  # as harvest's base_tags: a project named after its user is no tag
        return None
    return kebab(name, 40) or None  # as text.slug.project_tag, which harvest's records carry


def clean_project(name: str | None) -> str | None:
    """A ``--project`` value as a tag name: lowercase, kebab-case; a leading ``project:`` is allowed."""
    if name is None:
        return None
    from brain_core.errors import InvalidInput

    text = str(name).strip().lower()
    text = text.removeprefix(PREFIX)
    text = kebab(text, 40)
    if not _NAME.match(text):
        raise InvalidInput(f"The project {name!r} is not a name like billing or damage-control.")
    return text


def from_cwd(project: str | None = None, all_projects: bool = False, cwd: str | None = None) -> str | None:
    """The project a command run here works in: ``--project`` when given, none with
    ``--all-projects``, else the project of the working folder."""
    if all_projects:
        return None
    if project:
        return clean_project(project)
    try:
        return project_of(cwd or os.getcwd())
    except OSError:
        return None
