"""The memory lifecycle: how the brain stays small, true and trustworthy as it grows.

Tiers change at different speeds (DESIGN.md): L1 lessons, L2 records and events, L3 curated
pages in ``knowledge/``, L4 published pages in ``wiki/``, and ``archive/`` for what was merged or
faded. Each step is its own module and each is a propose -> check -> apply pass whose ``dry_run``
shows the plan without writing:

- :mod:`.consolidate`  L2 events -> durable records, judged (:mod:`.judge`) before anything moves
- :mod:`.compile`      L1 lessons -> ``knowledge/<slug>.md`` pages
- :mod:`.cluster`      L2 clusters -> proposed L3 pages the user accepts
- :mod:`.publish`      accepted L3 pages -> ``wiki/`` (L4)
- :mod:`.maintain`     the nightly pass: decay, expiry, archive, lint, INDEX.md
- :mod:`.tier_index`   INDEX.md within a character budget, the rest on the shelf file
- :mod:`.asof`         recall from the brain as it was at a date (git history)

Nothing here deletes a file: what leaves a shelf is moved under ``archive/`` by ``Brain.move``.
Nothing heavy is imported here, so ``import brain_core.lifecycle`` stays cheap.
"""
