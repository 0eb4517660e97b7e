"""``python -m domino.lessons [PATH]``: write the lessons' JSON (default: web/lessons.json)."""

from domino.lessons.build import main

raise SystemExit(main())
