"""An update refuses, before any request, a document whose article holds markup a browser reads
otherwise than oo_nb (``oo check``'s unmodelled-markup): its edit, a splice at the model's node
boundaries, could cut into what the page shows (an outside attack deleted a section's paragraphs
through ``<svg><style><h2>`` and a table through an ``<h2>`` a browser moves out of it)."""

from __future__ import annotations

from pathlib import Path

import pytest

from oo_nb.agent.run import UpdateOptions, begin
from oo_nb.errors import AgentError

DEMO = Path(__file__).resolve().parents[2] / "oo_nb" / "demo" / "data" / "documents"


@pytest.mark.parametrize(
    "markup",
    [
        "<svg><style><h2 id=x>X</h2></style></svg>",
        "<table><h2 id=y>Y</h2><tr><td>1</td></tr></table>",
        "</div>",
    ],
)
def test_markup_a_browser_reads_otherwise_stops_the_update_before_it_starts(
    tmp_path: Path, markup: str
) -> None:
    source = sorted(DEMO.glob("*.o-o.html"))[0]
    text = source.read_text()
    at = text.index("</article>")
    path = tmp_path / source.name
    path.write_text(text[:at] + markup + text[at:])
    before = path.read_bytes()
    with pytest.raises(AgentError, match="a browser reads otherwise") as caught:
        begin(path, UpdateOptions(force=True, agent="replay"))
    assert caught.value.line == text[:at].count("\n") + 1
    assert path.read_bytes() == before


def test_a_clean_document_still_starts(tmp_path: Path) -> None:
    source = sorted(DEMO.glob("*.o-o.html"))[0]
    path = tmp_path / source.name
    path.write_bytes(source.read_bytes())
    assert begin(path, UpdateOptions(force=True, agent="replay")).doc.article_span is not None
