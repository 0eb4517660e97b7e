"""The client's files: slimmed, gzipped, named by content, revalidated or immutable."""

from __future__ import annotations

import gzip
from pathlib import Path

from starlette.testclient import TestClient

from domino.server.transport.assets import WebAssets, slim


def _web(tmp_path: Path) -> Path:
    (tmp_path / "js").mkdir()
    (tmp_path / "css").mkdir()
    (tmp_path / "index.html").write_text(
        '<html><head><title>x</title><link rel="stylesheet" href="css/a.css">'
        '<script type="module" src="js/app.js"></script></head></html>',
        encoding="utf-8",
    )
    (tmp_path / "js" / "app.js").write_text(
        '// a comment\nimport { x } from "./dom.js";\n\n  /** doc\n   * more\n   */\n'
        "  console.log(x); // kept: after code\n",
        encoding="utf-8",
    )
    (tmp_path / "js" / "dom.js").write_text("export const x = 1;\n" * 50, encoding="utf-8")
    (tmp_path / "css" / "a.css").write_text("/* c */\nbody {\n  color: red;\n}\n", encoding="utf-8")
    (tmp_path / "favicon.svg").write_text("<svg></svg>", encoding="utf-8")
    (tmp_path / ".secret.js").write_text("no", encoding="utf-8")
    return tmp_path


def test_the_page_names_every_module_by_its_content(tmp_path: Path) -> None:
    client = TestClient(WebAssets(_web(tmp_path), {"de": "abc"}))
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["cache-control"] == "no-cache"
    html = page.text
    app = client.get("/js/app.js")
    v = app.headers["etag"].strip('"')
    assert f'"/js/app.js?v={v}"' in html  # the script tag and the import map
    assert '<script type="importmap">' in html and '"/js/dom.js": "/js/dom.js?v=' in html
    assert '<meta name="domino-i18n" content="{&quot;de&quot;: &quot;abc&quot;}">' in html
    # With the current version: cached for good; without: revalidated.
    assert client.get(f"/js/app.js?v={v}").headers["cache-control"].endswith("immutable")
    assert app.headers["cache-control"] == "no-cache"
    assert client.get("/js/app.js?v=old").headers["cache-control"] == "no-cache"


def test_revalidation_gzip_and_refusals(tmp_path: Path) -> None:
    client = TestClient(WebAssets(_web(tmp_path)))
    first = client.get("/js/dom.js", headers={"Accept-Encoding": "gzip"})
    assert first.headers["content-encoding"] == "gzip"
    assert first.text == "export const x = 1;\n" * 50  # httpx unpacks it
    again = client.get("/js/dom.js", headers={"If-None-Match": first.headers["etag"]})
    assert again.status_code == 304 and again.content == b""
    plain = client.get("/js/dom.js", headers={"Accept-Encoding": "identity"})
    assert "content-encoding" not in plain.headers
    for bad in ("/.secret.js", "/nothing.js", "/js/", "/x.py"):
        assert client.get(bad).status_code == 404, bad
    # (the HTTP client would resolve "..": ask the app's own lookup)
    assert WebAssets(tmp_path).file("js/../index.html") is None
    assert client.post("/").status_code == 405


def test_a_changed_file_gets_a_new_address(tmp_path: Path) -> None:
    web = _web(tmp_path)
    client = TestClient(WebAssets(web))
    before = client.get("/").text
    (web / "js" / "dom.js").write_text("export const x = 2;\n", encoding="utf-8")
    after = client.get("/").text
    assert before != after
    assert client.get("/js/dom.js").text == "export const x = 2;\n"


def test_slim_drops_only_whole_line_comments_and_indentation() -> None:
    js = (
        "// head\n/* block\n * more */\nconst a = 1; // tail stays\n"
        "  const t = `line one\n  // inside a template: kept\n  end`;\n\n  /** one */ f();\n"
    )
    assert slim(js, ".js") == (
        "const a = 1; // tail stays\nconst t = `line one\n  // inside a template: kept\n"
        "  end`;\nf();\n"
    )
    assert slim("a {\n  /* x */ color: red;\n}\n", ".css") == "a {\ncolor: red;\n}\n"
    assert slim("const s = `open\n", ".js") == "const s = `open\n"  # unbalanced: untouched
    assert slim("<p>  x</p>", ".html") == "<p>  x</p>"


def test_the_real_client_survives_slimming() -> None:
    # Every module still parses after slimming: the browser tests run on the slimmed files,
    # and here no line of code may be lost (only comments and blanks go).
    web = Path(__file__).resolve().parents[2] / "src" / "domino" / "web"
    for path in sorted(web.glob("js/*.js")):
        text = path.read_text(encoding="utf-8")
        slimmed = slim(text, ".js")
        kept = [ln.strip() for ln in text.splitlines() if ln.strip()]
        code = [ln for ln in kept if not ln.startswith(("//", "/*", "*"))]
        assert [ln for ln in code if ln not in slimmed.splitlines()] == [], path.name
        assert len(gzip.compress(slimmed.encode())) < len(gzip.compress(text.encode())), path.name


def test_only_the_static_import_graph_is_preloaded(tmp_path: Path) -> None:
    web = _web(tmp_path)
    (web / "js" / "app.js").write_text(
        'import { x } from "./dom.js";\nimport {\n  y,\n} from "./more.js";\n'
        'const later = () => import("./table.js");\n',
        encoding="utf-8",
    )
    (web / "js" / "more.js").write_text('export * from "./deep.js";\n', encoding="utf-8")
    (web / "js" / "deep.js").write_text("export const y = 1;\n", encoding="utf-8")
    (web / "js" / "table.js").write_text("export const T = 1;\n", encoding="utf-8")
    assets = WebAssets(web)
    assert assets.static_imports("js/app.js") == {
        "js/app.js",
        "js/dom.js",
        "js/more.js",
        "js/deep.js",
    }
    html = TestClient(assets).get("/").text
    assert 'rel="modulepreload" href="/js/deep.js?v=' in html
    assert 'rel="modulepreload" href="/js/table.js' not in html
    assert '"/js/table.js": "/js/table.js?v=' in html  # the import map still names it
