"""``beliefgraph show`` and ``beliefgraph.viz``: the pictures are produced, valid and right."""

from __future__ import annotations

import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import ROOT
from typer.testing import CliRunner

from beliefgraph import ConfigurationError, PerceptionModel, track
from beliefgraph.cli.main import app
from beliefgraph.viz import render, storyboard, to_html

runner = CliRunner()
SALLY = ROOT / "examples" / "sally_anne.txt"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
CHROMIUM = shutil.which("chromium") or (
    "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None
)


class _Page(HTMLParser):
    """Collects the tags and the visible text of a page; fails on unbalanced SVG tags."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.text: list[str] = []
        self.open_svg: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        if tag == "svg" or self.open_svg:
            self.open_svg.append(tag)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)

    def handle_endtag(self, tag: str) -> None:
        if self.open_svg:
            assert self.open_svg.pop() == tag, f"unbalanced </{tag}> in the SVG"

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC, "not a PNG file"
    assert data[12:16] == b"IHDR"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_show_writes_a_png(tmp_path: Path) -> None:
    out = tmp_path / "graph.png"
    result = runner.invoke(app, ["show", str(SALLY), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"wrote {out}" in result.output.replace("\n", "")
    data = out.read_bytes()
    width, height = _png_size(data)
    assert width > 1000 and height > 500, (width, height)
    assert len(data) > 20_000
    assert data.rstrip(b"\x00").endswith(b"IEND\xaeB`\x82")


def test_show_writes_an_html_page_with_a_valid_svg(tmp_path: Path) -> None:
    out = tmp_path / "graph.html"
    result = runner.invoke(app, ["show", str(SALLY), "--out", str(out)])
    assert result.exit_code == 0, result.output
    page = out.read_text(encoding="utf-8")
    parser = _Page()
    parser.feed(page)
    parser.close()
    assert parser.tags[0] == "html" and "svg" in parser.tags and "title" in parser.tags
    text = " ".join(parser.text)
    for needle in ("Sally", "Anne", "Reality", "the ball is in the basket", "Sally comes back."):
        assert needle in text
    # The embedded SVG is well-formed XML on its own (it could be saved as an .svg file).
    svg = page[page.index("<svg") : page.index("</svg>") + len("</svg>")]
    root = ET.fromstring(svg)
    assert root.tag.endswith("svg")
    assert any(el.text == "Sally" for el in root.iter("{http://www.w3.org/2000/svg}text"))


def test_show_defaults_to_html_named_after_the_story(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    result = runner.invoke(app, ["show", str(SALLY)])
    assert result.exit_code == 0, result.output
    assert (tmp_path / "sally_anne.html").is_file()


def test_show_reads_standard_input(tmp_path: Path) -> None:
    out = tmp_path / "story.html"
    result = runner.invoke(app, ["show", "-", "--out", str(out)], input=SALLY.read_text())
    assert result.exit_code == 0, result.output
    assert "Anne" in out.read_text(encoding="utf-8")


def test_unknown_picture_format_is_one_red_line(tmp_path: Path) -> None:
    result = runner.invoke(app, ["show", str(SALLY), "--out", str(tmp_path / "graph.jpg")])
    assert result.exit_code == 1
    assert "graph.jpg" in result.output and ".html or .png" in result.output
    assert "Traceback" not in result.output


def test_missing_story_is_one_red_line() -> None:
    result = runner.invoke(app, ["show", "no/such/story.txt"])
    assert result.exit_code == 1
    assert "no/such/story.txt" in result.output and "Traceback" not in result.output


def test_storyboard_shows_the_false_belief_and_its_cause() -> None:
    board = storyboard(track(SALLY.read_text()))
    assert board.actors == ("Sally", "Anne")
    sally = next(lane for lane in board.lanes if lane.name == "Sally")
    # Sally is away between leaving (5) and coming back (7) ...
    assert [(s.start, s.end) for s in sally.spans] == [(1.0, 5.0), (7.0, 7.5)]
    # ... so she misses the move at 6, which leaves her belief outdated.
    assert {m.t: m.kind for m in sally.marks}[6] == "outdating"
    ball = [b for b in sally.beliefs if "ball" in b.text]
    assert ball[0].indent == 0 and ball[0].status == "false" and ball[0].outdated
    assert "outdated since 6" in ball[0].render()
    # Her model of Anne is nested under a heading, one level in.
    heading = sally.beliefs.index(next(b for b in sally.beliefs if b.status == "heading"))
    assert sally.beliefs[heading].text == "Anne thinks"
    assert sally.beliefs[heading + 1].indent == 1
    anne = next(lane for lane in board.lanes if lane.name == "Anne")
    assert any(b.text == "the ball is in the box" and b.status == "true" for b in anne.beliefs)
    reality = board.lanes[0]
    assert reality.kind == "reality"
    assert any(b.text == "the ball is in the box" for b in reality.beliefs)


def test_storyboard_marks_a_lie() -> None:
    story = (ROOT / "examples" / "02_hitom_fourth_order_lie.py").read_text()
    text = story.split('STORY = """\\\n', 1)[1].split('"""', 1)[0]
    graph = track(text, perception=PerceptionModel(open_containers=True), trust="hitom")
    board = storyboard(graph, max_order=1)
    abigail = next(lane for lane in board.lanes if lane.name == "Abigail")
    lemon = next(b for b in abigail.beliefs if "lemon" in b.text)
    assert lemon.status == "false" and "told by Avery" in lemon.tags and "a lie" in lemon.tags
    assert not any(b.status == "heading" for b in abigail.beliefs)  # max_order=1: no nesting


def test_max_order_below_one_is_a_configuration_error() -> None:
    with pytest.raises(ConfigurationError, match="max_order"):
        storyboard(track(SALLY.read_text()), max_order=0)


def test_render_rejects_an_unknown_extension(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match=r"\.html or \.png"):
        render(track(SALLY.read_text()), tmp_path / "graph.svg")


def test_html_escapes_story_text() -> None:
    graph = track("Sally and Anne are in the room. Sally puts the ball in the basket.")
    board = storyboard(graph, title="<script>alert(1)</script>")
    page = to_html(board)
    assert "<script>alert(1)</script>" not in page
    assert "&lt;script&gt;" in page


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=180,
    )


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (CI apt-installs it)")
def test_html_renders_in_headless_chromium(tmp_path: Path) -> None:
    page = render(track(SALLY.read_text()), tmp_path / "graph.html")
    done = _chromium("--dump-dom", page.as_uri(), profile=tmp_path / "profile")
    assert done.returncode == 0, done.stderr[-2000:]
    dom = done.stdout
    assert "<svg" in dom and "</html>" in dom
    for name in ("Sally", "Anne"):
        assert f">{name}</text>" in dom, f"{name}'s lane is missing from the rendered page"
    assert "the ball is in the basket" in dom
    # And a screenshot: the page paints to a real image.
    shot = tmp_path / "shot.png"
    done = _chromium(
        "--hide-scrollbars",
        "--window-size=1400,900",
        f"--screenshot={shot}",
        page.as_uri(),
        profile=tmp_path / "profile2",
    )
    assert done.returncode == 0, done.stderr[-2000:]
    width, height = _png_size(shot.read_bytes())
    assert (width, height) == (1400, 900)
