"""The client's files, served compressed and cached by content.

The client is a handful of small files (``domino/web``). They are read into memory, gzipped
once, and named by their content: the page lists every module in an import map that points
``/js/table.js`` at ``/js/table.js?v=<hash>``, and a request carrying the current hash is
answered with ``Cache-Control: immutable`` for a year. The page itself, and any request without
the current hash, is revalidated each time (``no-cache`` with a strong ETag): a second visit
downloads nothing but a few 304s, and a changed file reaches the browser at once, because its
hash, and so its address, changed with it.

A file that changes on disk is read again on its next request (one ``stat`` per request), so
editing the client needs no restart.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import parse_qs

from starlette.types import Receive, Scope, Send

#: Content types of the client's files, by suffix; other files are not served.
TYPES: dict[str, str] = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".json": "application/json",
}
#: Already compressed types are sent as they are.
PACKED = {".png"}
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"
#: Where the page names the catalogue versions for the client (js/i18n.js reads it).
I18N_META = "domino-i18n"


def version_of(body: bytes) -> str:
    """A short content hash: the ``v`` of an asset's address and its ETag."""
    return hashlib.sha256(body).hexdigest()[:16]


#: ``import ... from "./x.js";`` at a line's start (a dynamic ``import("./x.js")`` is not one).
_STATIC_IMPORT = re.compile(
    r'^\s*(?:import|export)\b[^;"\'(]*?from\s*["\'](\.{1,2}/[^"\']+)["\']', re.M
)
_CSS_COMMENT = re.compile(r"/\*.*?\*/", re.S)


def slim(text: str, suffix: str) -> str:
    """The file without what only its readers need: whole-line comments, indentation, blank
    lines. Deliberately light, no tokenizer: a comment after code on the same line stays, and
    so does every line inside a multi-line template literal. Saves about a fifth of the gzipped
    bytes; the browser tests run on the slimmed files.
    """
    original = text
    if suffix == ".css":
        text = _CSS_COMMENT.sub("", text)
    elif suffix != ".js":
        return text
    out: list[str] = []
    in_block = in_template = False
    for line in text.split("\n"):
        if in_template:
            out.append(line)
            in_template = _backticks(line) % 2 == 0
            continue
        s = line.strip()
        if in_block:
            end = s.find("*/")
            if end < 0:
                continue
            in_block, s = False, s[end + 2 :].strip()
        elif suffix == ".js" and s.startswith("/*"):
            end = s.find("*/", 2)
            if end < 0:
                in_block = True
                continue
            s = s[end + 2 :].strip()
        if not s or s.startswith("//"):
            continue
        out.append(s)
        in_template = suffix == ".js" and _backticks(s) % 2 == 1
    if in_block or in_template:
        return original  # not what this simple reader expects: send the file as it is
    return "\n".join(out) + "\n"


def _backticks(line: str) -> int:
    return len(re.findall(r"(?<!\\)`", line))


@dataclass(frozen=True, slots=True)
class Blob:
    """One response body in both encodings, with its version."""

    body: bytes
    gz: bytes | None  # None when gzip would not make it smaller
    version: str
    ctype: str

    @classmethod
    def of(cls, body: bytes, ctype: str, *, pack: bool = True) -> Blob:
        gz = gzip.compress(body, 9, mtime=0) if pack else None
        return cls(
            body, gz if gz is not None and len(gz) < len(body) else None, version_of(body), ctype
        )


@dataclass(frozen=True, slots=True)
class _File:
    stamp: tuple[int, int]  # mtime_ns, size
    blob: Blob


def answer(
    headers: Mapping[str, str], method: str, blob: Blob, *, immutable: bool
) -> tuple[int, list[tuple[bytes, bytes]], bytes]:
    """Status, headers and body for a GET or HEAD of ``blob`` (``headers``: the request's,
    lower-case names): gzip when accepted, 304 when the ETag matches."""
    etag = f'"{blob.version}"'
    out: list[tuple[bytes, bytes]] = [
        (b"cache-control", (IMMUTABLE if immutable else REVALIDATE).encode()),
        (b"etag", etag.encode()),
        (b"x-content-type-options", b"nosniff"),
    ]
    if blob.gz is not None:
        out.append((b"vary", b"Accept-Encoding"))
    if _etag_matches(headers.get("if-none-match", ""), etag):
        return 304, out, b""
    body = blob.body
    if blob.gz is not None and _accepts_gzip(headers.get("accept-encoding", "")):
        body = blob.gz
        out.append((b"content-encoding", b"gzip"))
    out += [(b"content-type", blob.ctype.encode()), (b"content-length", str(len(body)).encode())]
    return 200, out, b"" if method == "HEAD" else body


class WebAssets:
    """An ASGI app for the client's files under ``root`` (mounted at ``/``).

    ``extra`` names further versioned resources the page announces (the text catalogues:
    ``{"de": version}``) in a ``<meta name="domino-i18n">``.
    """

    def __init__(self, root: Path, extra: Mapping[str, str] | None = None) -> None:
        self.root = root.resolve()
        self.extra = dict(extra or {})
        self._files: dict[str, _File] = {}
        self._page: tuple[tuple[tuple[str, str], ...], Blob] | None = None

    # -- files --------------------------------------------------------------------------------

    def _path(self, rel: str) -> Path | None:
        """The file for a request path, or None (outside the root, hidden, unknown type)."""
        parts = PurePosixPath(rel).parts
        if not parts or any(p in ("", ".", "..") or p.startswith(".") for p in parts):
            return None
        path = self.root.joinpath(*parts)
        if path.suffix not in TYPES:
            return None
        return path

    def file(self, rel: str) -> Blob | None:
        """The current content of ``rel`` (read again when it changed on disk)."""
        path = self._path(rel)
        if path is None:
            return None
        try:
            st = os.stat(path)
        except OSError:
            self._files.pop(rel, None)
            return None
        if not os.path.isfile(path):
            return None
        stamp = (st.st_mtime_ns, st.st_size)
        known = self._files.get(rel)
        if known is not None and known.stamp == stamp:
            return known.blob
        body = path.read_bytes()
        if path.suffix in (".js", ".css"):
            body = slim(body.decode("utf-8"), path.suffix).encode("utf-8")
        blob = Blob.of(body, TYPES[path.suffix], pack=path.suffix not in PACKED)
        self._files[rel] = _File(stamp, blob)
        return blob

    def assets(self) -> list[str]:
        """The versioned files the page names: the modules, the style sheets, the icon."""
        names = [f"js/{p.name}" for p in sorted((self.root / "js").glob("*.js"))]
        names += [f"css/{p.name}" for p in sorted((self.root / "css").glob("*.css"))]
        return [*names, "favicon.svg"]

    def page(self) -> Blob | None:
        """index.html with every asset's address carrying its version, and an import map."""
        versions: list[tuple[str, str]] = []
        for rel in self.assets():
            blob = self.file(rel)
            if blob is not None:
                versions.append((rel, blob.version))
        index = self.file("index.html")
        if index is None:
            return None
        key = (("index.html", index.version), *versions)
        if self._page is not None and self._page[0] == key:
            return self._page[1]
        html = index.body.decode("utf-8")
        v = dict(versions)
        for rel in v:
            # The page's own references: src="js/app.js", href="css/app.css", href="favicon.svg".
            html = html.replace(f'"{rel}"', f'"/{rel}?v={v[rel]}"')
        modules = {f"/{rel}": f"/{rel}?v={ver}" for rel, ver in versions if rel.endswith(".js")}
        eager = self.static_imports("js/app.js")
        head = [
            f'<meta name="{I18N_META}" content="{_attr(json.dumps(self.extra, sort_keys=True))}">',
            '<script type="importmap">' + json.dumps({"imports": modules}) + "</script>",
            # Fetch the whole module graph at once, not one import level after the other.
            # (only what app.js imports statically: code it loads later stays out of a
            # first visit)
            *(
                f'<link rel="modulepreload" href="{url}">'
                for key, url in modules.items()
                if key.removeprefix("/") in eager
            ),
        ]
        html = html.replace("<title>", "\n".join(head) + "\n<title>", 1)
        blob = Blob.of(html.encode("utf-8"), TYPES[".html"])
        self._page = (key, blob)
        return blob

    def static_imports(self, entry: str) -> set[str]:
        """The modules ``entry`` needs before it runs: its static imports, transitively."""
        seen: set[str] = set()
        todo = [entry]
        while todo:
            rel = todo.pop()
            if rel in seen:
                continue
            blob = self.file(rel)
            if blob is None:
                continue
            seen.add(rel)
            base = PurePosixPath(rel).parent
            for spec in _STATIC_IMPORT.findall(blob.body.decode("utf-8")):
                todo.append(os.path.normpath(str(base / spec)))
        return seen

    # -- ASGI -----------------------------------------------------------------------------------

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        if scope["method"] not in ("GET", "HEAD"):
            await _respond(send, 405, [(b"allow", b"GET, HEAD")], b"")
            return
        rel = scope["path"].lstrip("/")
        if rel in ("", "index.html"):
            blob = self.page()
            immutable = False
        else:
            blob = self.file(rel)
            wanted = parse_qs(scope.get("query_string", b"").decode("latin-1")).get("v", [""])[0]
            immutable = blob is not None and wanted == blob.version
        if blob is None:
            await _respond(
                send, 404, [(b"content-type", b"text/plain; charset=utf-8")], b"Not Found"
            )
            return
        status, headers, body = answer(
            _request_headers(scope), scope["method"], blob, immutable=immutable
        )
        await _respond(send, status, headers, body)


# -- helpers -------------------------------------------------------------------------------------


def _request_headers(scope: Scope) -> dict[str, str]:
    return {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}


def _accepts_gzip(value: str) -> bool:
    for part in value.split(","):
        name, _, params = part.strip().partition(";")
        if name.strip().lower() in ("gzip", "*"):
            q = params.strip()
            return not (q.startswith("q=") and _q(q[2:]) == 0.0)
    return False


def _q(text: str) -> float:
    try:
        return float(text)
    except ValueError:
        return 1.0


def _etag_matches(header: str, etag: str) -> bool:
    if not header:
        return False
    if header.strip() == "*":
        return True
    # Weak comparison (RFC 9110 13.1.2): a W/ prefix, added by some proxies, still matches.
    tags = [t.strip().removeprefix("W/") for t in header.split(",")]
    return etag in tags


def _attr(text: str) -> str:
    return text.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;")


async def _respond(
    send: Send, status: int, headers: list[tuple[bytes, bytes]], body: bytes
) -> None:
    if status != 304 and not any(k == b"content-length" for k, _ in headers):
        # (a HEAD answer keeps the length of the body it would have sent)
        headers = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
