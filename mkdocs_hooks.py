"""mkdocs hook: add the generated rules reference (docs/generated/nav.json) to the navigation.

`rulespec docs --out docs/generated` writes nav.json with the pages in reading order. Without it
(pages not generated yet) the site is built from the hand-written pages alone.
"""

from __future__ import annotations

import json
import os

GENERATED = "generated"


def _prefix(items):
    out = []
    for item in items:
        (title, target), = item.items()
        out.append({title: _prefix(target) if isinstance(target, list) else f"{GENERATED}/{target}"})
    return out


def on_config(config, **kwargs):
    path = os.path.join(config["docs_dir"], GENERATED, "nav.json")
    if not os.path.isfile(path):
        return config
    with open(path, encoding="utf-8") as f:
        items = json.load(f)
    nav = list(config["nav"] or [])
    nav.append({"Rules reference": _prefix(items)})
    config["nav"] = nav
    return config
