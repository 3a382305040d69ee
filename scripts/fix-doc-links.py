#!/usr/bin/env python3
"""Rewrites DocC symbol links that cross modules into absolute links.

DocC resolves ``Symbol`` only inside the symbol's own module; in the combined archive that
`make docs` builds, a link from WebImage or WebImageCodecs to a WebImageCore type must be
written ``/WebImageCore/Symbol``. This script finds the top-level types each module declares
and rewrites links accordingly. usage: scripts/fix-doc-links.py (from the project root)
"""
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent / "Sources"
MODULES = ["WebImageCore", "WebImageCodecs", "WebImage"]
DECL = re.compile(r"^public (?:final )?(?:class|struct|enum|protocol|typealias|actor) (\w+)", re.M)

declared = {}
for module in MODULES:
    for path in (ROOT / module).rglob("*.swift"):
        for name in DECL.findall(path.read_text()):
            declared.setdefault(name, module)

LINK = re.compile(r"``(\w+)((?:/[^`]*)?)``")
for module in MODULES:
    for path in list((ROOT / module).rglob("*.swift")) + list((ROOT / module).rglob("*.md")):
        text = path.read_text()

        def fix(match):
            owner = declared.get(match.group(1))
            if owner and owner != module:
                return f"``/{owner}/{match.group(1)}{match.group(2)}``"
            return match.group(0)

        new = LINK.sub(fix, text)
        if new != text:
            path.write_text(new)
            print("fixed", path.relative_to(ROOT.parent))
