"""The review widget: a header that stays in view while the changes scroll (summary, counts,
the run's warnings, Accept all / Reject all / Preview / Write back), the result preview in a
column beside the changes when asked for (it stays in view too), the changes grouped by section (each group
collapsible), and the changes that follow the decisions folded into one line. Accept / reject /
edit per change; "Write back" goes through the store. Its plain-text repr is a short summary
(what saved notebooks show).

An ipywidgets composite rather than an anywidget: every control is a stock widget that Python
drives and tests click (``Button.click()`` with a DummyComm), keyboard focus and Space/Enter come
with the stock controls, and no front-end code has to be shipped or kept in step. Its only
front-end file is the stylesheet ``widgets/review.css`` (see ``review_css``).

Stable CSS classes for browser tests: ``oo-review`` (the widget), ``oo-head`` (the sticky
header), ``oo-main`` (the header and the changes), ``oo-side`` (the preview's column, shown
while previewing; the widget has ``oo-previewing`` then), ``oo-summary``, ``oo-run-warnings`` (the saved run's warnings; hidden when there are
none), ``oo-counts``, ``oo-toolbar``, ``oo-accept-all``, ``oo-reject-all``,
``oo-preview-button``, ``oo-write-back``, ``oo-status``, ``oo-error``, ``oo-preview``,
``oo-hunks``; per group ``oo-group``, ``oo-group-toggle``, ``oo-group-body`` (holding
``oo-group-rows``, then ``oo-show-more`` while some of its changes are not built yet), and for
more than one change ``oo-group-head``, ``oo-accept-group``, ``oo-reject-group``; per change
``oo-hunk`` (+ ``oo-hunk-added|removed|changed``, ``oo-area-<area>``, ``oo-hunk-<index>``,
``oo-decided-pending|accept|reject|edit``), ``oo-hunk-title``, ``oo-diff``, ``oo-hunk-preview``,
``oo-accept``, ``oo-reject``, ``oo-edit``, ``oo-editor``, ``oo-save-edit``, ``oo-cancel-edit``,
``oo-state``, ``oo-hunk-error``; ``oo-derived-all`` (the ``<details>`` of the changes that
follow the decisions), each ``oo-derived``. Unknown change kinds and areas render generically
(their kind as the label, a group of their own).

Scale: a change's widgets are built when its group is shown, 50 at a time (``review_group``).
Groups start open while the changes shown stay few (``EAGER``, none bigger than a page); the
rest start folded, their headers counting their changes and decisions. Past ``SECTIONS_PAGE``
sections, the sections' groups themselves come a page at a time (``oo-more-sections``). So a
proposal adding a thousand sources (or sections) opens about as fast as a normal update; every
change is still reachable, and Accept all / Reject all / a group's buttons decide the changes
not built yet too (``view(hunk_id)`` builds up to one).
"""

from __future__ import annotations

import html
from collections import Counter
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle  # not re-exported by ipywidgets

from oo_nb.errors import ConflictError, OOError
from oo_nb.format.document import Document
from oo_nb.notebook.buttons import Button
from oo_nb.notebook.review_derived import derived_html
from oo_nb.notebook.review_group import PAGE, ReviewGroup
from oo_nb.notebook.review_hunk import HunkView
from oo_nb.review.hunks import Hunk
from oo_nb.review.images import ImageRef
from oo_nb.review.session import ReviewSession
from oo_nb.review.summary import run_notices

if TYPE_CHECKING:
    from oo_nb.api.widgets import Commit

__all__ = ["EAGER", "SECTIONS_PAGE", "ReviewWidget", "review_css"]

EAGER = 100  # at most this many changes are built before the reviewer opens a group
SECTIONS_PAGE = 40  # sections' groups built at a time


def review_css() -> str:
    """The stylesheet, from its one source ``widgets/review.css``: read in place in a source
    checkout (so an edit shows at once), or the copy a wheel carries (``pyproject.toml``
    force-includes it; nothing is copied into the source tree)."""
    source = Path(__file__).resolve().parents[2] / "widgets" / "review.css"
    if source.is_file():
        return source.read_text("utf-8")
    packaged = resources.files("oo_nb.notebook").joinpath("review.css")
    return packaged.read_text("utf-8") if packaged.is_file() else ""


_AREA_GROUPS = {
    "sources": "Sources",
    "facts": "Facts",
    "contract": "Contract",
    "manifest": "Manifest",
    "source-cache": "Source cache",
    "changelog": "Changelog",
    "page": "Page",
}


class ReviewWidget(widgets.VBox):  # type: ignore[misc]
    """Review ``candidate`` against the document at ``path_or_document`` and write back what
    was accepted. ``run`` is the agent's run record (for the cost when the changelog has none).
    A proposal's widget (``Proposal.review()``) is given its ``session`` (the decisions Python
    takes too) and its ``commit`` (its one write, which discards its saved file)."""

    def __init__(
        self,
        path_or_document: str | Path | Document,
        candidate: Document,
        run: dict[str, Any] | None = None,
        *,
        session: ReviewSession | None = None,
        commit: Commit | None = None,
    ) -> None:
        if isinstance(path_or_document, Document):
            original = path_or_document
        else:
            original = Document.read(path_or_document)
        self.path: Path | None = original.path
        self._expected = original.to_bytes()
        self._commit = commit
        if session is None:
            session = ReviewSession(
                original, candidate.with_path(self.path) if self.path else candidate, run
            )
        self.session = session
        self.written: Path | None = None
        self.final: Document | None = None
        self._wrote = False  # Write back changed the file (not only "nothing accepted")
        diff = self.session.diff
        # one layout and style model for the parts whose layout never changes (the run's
        # warnings, the conflict box, the side column, "Change the text decisions" and "Show
        # more sections" keep their own): each part's own were most of the saved widget state
        self._layout = widgets.Layout()
        self._html_style = HTMLStyle()
        self._button_style = widgets.ButtonStyle()
        name = self.path.name if self.path else "(unsaved document)"
        self.summary = self._html(
            f"<b>{html.escape(name)}</b> · {html.escape(diff.summary.text())}", "oo-summary"
        )
        self.notices = run_notices(self.session.run)  # the run's warnings, saved with the proposal
        n = len(self.notices)
        self.warnings = self._html(
            f"<details><summary>{n} warning{'s' if n != 1 else ''} from the run that made this "
            f"proposal: {html.escape(self.notices[0])}{' …' if n > 1 else ''}</summary><ul>"
            + "".join(f"<li>{html.escape(w)}</li>" for w in self.notices)
            + "</ul></details>"
            if self.notices
            else "",
            "oo-run-warnings",
            own_layout=True,
        )
        self.warnings.layout.display = "flex" if self.notices else "none"
        self.counts = self._html("", "oo-counts")
        self.status = self._html("", "oo-status")
        self.error = self._html("", "oo-error")
        self.preview = self._html("", "oo-preview")
        self.accept_all_button = self._button("Accept all", "oo-accept-all", self._accept_all)
        self.reject_all_button = self._button("Reject all", "oo-reject-all", self._reject_all)
        self.preview_button = self._button(
            "Preview result", "oo-preview-button", self.toggle_preview
        )
        self.write_button = self._button(
            "Write back", "oo-write-back", self.write_back, style="primary"
        )
        toolbar = widgets.HBox(
            [
                self.accept_all_button,
                self.reject_all_button,
                self.preview_button,
                self.write_button,
                self.counts,
            ],
            layout=self._layout,
        )
        toolbar.add_class("oo-toolbar")
        # asked before writing when two decisions disagree (a rejected source that accepted
        # text cites): hidden until then
        self.conflict_text = self._html("", "oo-conflict-text")
        self.keep_sources_button = self._button(
            "Keep the sources and write", "oo-conflict-keep", self._keep_and_write, "warning"
        )
        self.drop_sources_button = self._button(
            "Change the text decisions instead",
            "oo-conflict-drop",
            self._drop_conflicts,
            own_layout=True,
        )
        self.conflict_box = widgets.VBox(
            [
                self.conflict_text,
                widgets.HBox(
                    [self.keep_sources_button, self.drop_sources_button], layout=self._layout
                ),
            ]
        )
        self.conflict_box.add_class("oo-conflict")
        self.conflict_box.layout.display = "none"
        # sticky: the decisions and their counts stay in reach while the changes scroll by
        head = widgets.VBox(
            [self.summary, self.warnings, toolbar, self.conflict_box, self.status, self.error],
            layout=self._layout,
        )
        head.add_class("oo-head")
        # the preview of the result: a column beside the changes, sticky too (in the header it
        # took 662 of 765 px at 1400x900 and the whole window at 1280x720: no change in view)
        self.side = widgets.VBox([self.preview])
        self.side.add_class("oo-side")
        self.side.layout.display = "none"
        # the changes' views built so far, in the order they were built (see ``view``)
        self.hunk_views: dict[str, HunkView] = {}
        self._group_of: dict[str, ReviewGroup] = {}
        self._section_groups: list[ReviewGroup] = []
        self._area_groups: list[ReviewGroup] = []
        self._more_sections: widgets.Button | None = None
        self._sections_left: list[tuple[str, tuple[str, ...]]] = []  # groups not built yet
        self._section_of: dict[str, int] = {}  # change id -> its section's place
        hunks = self._groups(list(diff.decidable))
        children: list[widgets.Widget] = [head]
        images = self._images(diff.images_added, "added") + self._images(
            diff.images_removed, "removed"
        )
        if images:
            row = widgets.HBox(images)
            row.add_class("oo-images")
            children += [self._html("Images", "oo-section-label"), row]
        children.append(hunks)
        derived = [h for h in diff.hunks if h.derived]
        if derived:
            children.append(self._html(derived_html(derived), "oo-derived-line"))
        main = widgets.VBox(children, layout=self._layout)
        main.add_class("oo-main")
        columns = widgets.HBox([main, self.side], layout=self._layout)
        columns.add_class("oo-columns")
        super().__init__(
            [self._html(f"<style>{review_css()}</style>", "oo-review-style"), columns],
            layout=self._layout,
        )
        self.add_class("oo-review")
        if diff.is_empty:
            self.status.value = "The candidate is the same as the document: nothing to review."
        self._refresh()

    @classmethod
    def from_pending(cls, path: str | Path, *, force: bool = False) -> ReviewWidget:
        """Review the proposal ``oo update`` saved for ``path``; writing back discards it. The
        saved file is untrusted: its candidate is rebuilt from the proposal's data through the
        agent's validation and sanitiser (``oo_nb.agent.pending``), or refused. It is the
        proposal's own widget (``Proposal.review()``): one write, of that saved file only."""
        from oo_nb.api.document import Document as Opened
        from oo_nb.api.proposal import Proposal, ProposalOutdated

        try:
            proposal = Proposal.saved(path, Opened.read, force=force)
        except ProposalOutdated:
            raise ConflictError(
                "changed since this proposal was made; run the update again (or pass force=True "
                "to review it against the current file)",
                file=str(path),
            ) from None
        widget = proposal.review()
        assert isinstance(widget, cls)
        return widget

    # ----------------------------------------------------------------- text
    def summary_text(self) -> str:
        """What the widget shows, as text: the document, versions and cost, the counts, the
        run's warnings (the plain-text repr: saved notebooks, GitHub and nbval show this)."""
        s = self.session.diff.summary
        c = self.session.counts()
        name = self.path.name if self.path else "(unsaved document)"
        cost = "cost n/a" if s.cost_usd is None else f"cost ${s.cost_usd:.4f}"
        lines = [
            f"Review of {name}: version {s.version_before} → {s.version_after}, {cost}",
            f"{len(self.session.diff.decidable)} change(s): {c['accept']} accepted, {c['reject']} rejected, "
            f"{c['edit']} edited, {c['pending']} undecided",
            s.text(),
        ]
        n = len(self.notices)
        if n:
            lines.append(
                f"{n} warning(s): " + "; ".join(self.notices[:3]) + (" …" if n > 3 else "")
            )
        if self.written is not None and self.final is not None:
            version = self.final.manifest.version
            lines.append(
                f"written: {self.written.name} (version {version})"
                if self._wrote
                else f"nothing accepted: {self.written.name} unchanged (version {version})"
            )
        return "\n".join(lines)

    def __repr__(self) -> str:
        return self.summary_text()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any] | None:
        bundle: dict[str, Any] | None = super()._repr_mimebundle_(**kwargs)
        if bundle is not None:
            bundle["text/plain"] = self.summary_text()
        return bundle

    # ----------------------------------------------------------------- parts
    def _html(self, value: str, cls: str, *, own_layout: bool = False) -> widgets.HTML:
        layout = widgets.Layout() if own_layout else self._layout
        w = widgets.HTML(value, layout=layout, style=self._html_style)
        w.add_class(cls)
        return w

    def _button(
        self, label: str, cls: str, act: Any, style: str = "", *, own_layout: bool = False
    ) -> Button:
        button = Button(
            description=label,
            button_style=style,
            tooltip=label,
            layout=widgets.Layout() if own_layout else self._layout,
            style=self._button_style,
        )
        button.add_class(cls)
        button.on_click(lambda _: act())
        return button

    def _images(self, images: tuple[ImageRef, ...], how: str) -> list[widgets.Widget]:
        out: list[widgets.Widget] = []
        for image in images:
            label = widgets.HTML(html.escape(f"{how}: {image.label}"))
            png = image.thumbnail_png()
            parts = [widgets.Image(value=png, format="png"), label] if png else [label]
            box = widgets.VBox(parts)
            box.add_class("oo-thumb")
            box.add_class(f"oo-thumb-{how}")
            out.append(box)
        return out

    def _section_titles(self) -> dict[str, str]:
        """Section id -> title, the candidate's over the original's (each article parsed once)."""
        titles = {s.id: s.title for s in self.session.original.article.sections}
        titles.update({s.id: s.title for s in self.session.candidate.article.sections})
        return titles

    @staticmethod
    def _group_name(hunk: Hunk, titles: dict[str, str]) -> str:
        if hunk.area == "article":
            return titles.get(hunk.section) or hunk.section or "Article"
        return _AREA_GROUPS.get(hunk.area) or str(hunk.area).capitalize()

    @property
    def groups(self) -> list[ReviewGroup]:
        """The groups built so far, in document order (sections, then sources, facts, fields)."""
        return [*self._section_groups, *self._area_groups]

    def _groups(self, hunks: list[Hunk]) -> widgets.VBox:
        """One collapsible group per section (then sources, facts, fields), in document order.
        Keyed by the section's id (or the area), not its title: two sections may share a title,
        and a section may be titled like an area ("Sources"). Groups open while the changes
        they show stay within ``EAGER``; the rest start folded, their changes not built. The
        first ``SECTIONS_PAGE`` sections' groups are built, the rest on "Show more sections"
        (each group is a dozen widget models, and a proposal may add a thousand sections); the
        areas' groups (a handful) always are."""
        order: dict[tuple[str, str], list[str]] = {}
        names: dict[tuple[str, str], str] = {}
        titles = self._section_titles()
        for h in hunks:
            key = (str(h.area), h.section if h.area == "article" else "")
            order.setdefault(key, []).append(h.id)
            if key not in names:
                names[key] = self._group_name(h, titles)
        taken = Counter(names.values())
        sections: list[tuple[str, tuple[str, ...]]] = []
        areas: list[tuple[str, tuple[str, ...]]] = []
        for key, ids in order.items():
            name = names[key]
            if taken[name] > 1 and key[1]:  # a title two groups share: the section's id tells
                name = f"{name} (#{key[1]})"
            (sections if key[0] == "article" else areas).append((name, tuple(ids)))
        self._sections_left = sections
        self._section_of = {hid: n for n, (_, ids) in enumerate(sections) for hid in ids}
        self._shown_changes = 0  # changes built in the groups opened at the start
        self._section_rows = widgets.VBox([], layout=self._layout)
        self._section_rows.add_class("oo-section-groups")
        self._show_sections(SECTIONS_PAGE)
        self._area_groups = [self._group(name, ids) for name, ids in areas]
        parts: list[widgets.Widget] = [self._section_rows]
        if self._sections_left:
            # keeps focus (stock button): Enter again shows the next page
            self._more_sections = widgets.Button()
            self._more_sections.add_class("oo-more-sections")
            self._more_sections.on_click(lambda _: self.show_more_sections())
            self._label_more_sections()
            parts.append(self._more_sections)
        box = widgets.VBox([*parts, *(g.box for g in self._area_groups)], layout=self._layout)
        box.add_class("oo-hunks")
        return box

    def _group(self, name: str, ids: tuple[str, ...]) -> ReviewGroup:
        opened = len(ids) <= PAGE and self._shown_changes + len(ids) <= EAGER
        self._shown_changes += len(ids) if opened else 0
        group = ReviewGroup(name, ids, self.session, self._make_view, self._decide, opened=opened)
        if self.written is not None:
            group.disable()
        self._group_of.update(dict.fromkeys(ids, group))
        return group

    def _show_sections(self, count: int) -> None:
        """Build the groups of the next ``count`` sections (they open within a fresh ``EAGER``
        budget: a page of sections is like a new, smaller review)."""
        self._shown_changes = 0
        new = [self._group(name, ids) for name, ids in self._sections_left[:count]]
        del self._sections_left[:count]
        self._section_groups += new
        self._section_rows.children = tuple(g.box for g in self._section_groups)

    def show_more_sections(self) -> None:
        self._show_sections(SECTIONS_PAGE)
        self._label_more_sections()

    def _label_more_sections(self) -> None:
        if self._more_sections is None:
            return
        left = self._sections_left
        if not left:
            self._more_sections.layout.display = "none"
            return
        step = min(SECTIONS_PAGE, len(left))
        changes = sum(len(ids) for _, ids in left)
        sections = "section" if len(left) == 1 else "sections"
        self._more_sections.description = (
            f"Show {step} more {'section' if step == 1 else 'sections'} ({len(left):,} "
            f"{sections} with {changes:,} change{'s' if changes != 1 else ''} not shown)"
        )
        self._more_sections.tooltip = (
            f"show the changes of the next {step} {'section' if step == 1 else 'sections'}"
        )

    def _make_view(self, hunk_id: str) -> HunkView:
        view = HunkView(self.session, self.session.hunk(hunk_id), self._refresh)
        if self.written is not None:  # built after writing back: shown, not decidable
            view.disable()
        self.hunk_views[hunk_id] = view
        return view

    def view(self, hunk_id: str) -> HunkView:
        """The view of the change ``hunk_id``, its group opened and built up to it."""
        if hunk_id not in self._group_of and hunk_id in self._section_of:
            built = len(self._section_groups)
            self._show_sections(self._section_of[hunk_id] + 1 - built)
            self._label_more_sections()
        group = self._group_of.get(hunk_id)
        if group is None:
            raise OOError(f"no change {hunk_id!r} to decide in this review")
        return group.open_to(hunk_id)

    # ----------------------------------------------------------------- actions
    def _refresh(self) -> None:
        c = self.session.counts()
        self.counts.value = html.escape(
            f"{c['accept']:,} accepted · {c['edit']:,} edited · {c['reject']:,} rejected · {c['pending']:,} undecided"
            + (" (undecided changes are not written)" if c["pending"] else "")
        )
        for group in self.groups:
            group.label()
        self.error.value = ""
        self.conflict_box.layout.display = "none"  # a decision changed: asked again on writing
        if self.preview.value:  # an open preview follows the decisions
            self.show_preview()

    def _accept_all(self) -> None:
        self._bulk(self.session.accept_all(), "accepted")

    def _reject_all(self) -> None:
        self._bulk(self.session.reject_all(), "rejected")

    def _decide(self, ids: tuple[str, ...], decision: str) -> None:
        """Accept or reject the changes ``ids`` (a group's), built or not; edits are kept, as
        Accept all keeps them."""
        kept = 0
        for hid in ids:
            if self.session.decision(hid) == "edit":
                kept += 1
            else:
                self.session.decide(hid, "accept" if decision == "accept" else "reject")
        self._bulk(kept, "accepted" if decision == "accept" else "rejected", "in this group")

    def _bulk(self, edits_kept: int, how: str, where: str = "") -> None:
        self._refresh_views()
        if edits_kept:
            self.status.value = html.escape(
                f"All other changes{' ' + where if where else ''} {how}; your {edits_kept} edited change(s) are kept as edited "
                "(use Accept or Reject on one to drop its edit)."
            )

    def _refresh_views(self) -> None:
        for view in self.hunk_views.values():
            view.refresh()
        self._refresh()

    def toggle_preview(self) -> None:
        """Show the result beside the changes, or hide it when it is shown."""
        if self.preview.value:
            self.preview.value = ""
            self.preview_button.description = "Preview result"
            self.side.layout.display = "none"
            self.remove_class("oo-previewing")
        else:
            self.show_preview()

    def show_preview(self) -> None:
        """The final document as it would be written, in a sandboxed frame."""
        from oo_nb.notebook.preview import ArticlePreview

        try:
            final = self.session.apply()
        except OOError as exc:
            self.error.value = html.escape(str(exc))
            return
        self.preview.value = ArticlePreview(final).to_html()
        self.preview_button.description = "Hide preview"
        self.side.layout.display = "flex"
        self.add_class("oo-previewing")

    def _ask_conflicts(self) -> bool:
        """Show the disagreements between decisions, if any, and say whether there were."""
        conflicts = self.session.conflicts()
        self.conflict_box.layout.display = "flex" if conflicts else "none"
        if not conflicts:
            return False
        self.conflict_text.value = (
            "<b>Before writing:</b><ul>"
            + "".join(f"<li>{html.escape(c.question)}</li>" for c in conflicts)
            + "</ul>Keep the sources (the text keeps its citations), or change the decisions on "
            "the text citing them?"
        )
        changeable = any(c.drop_label for c in conflicts)
        self.drop_sources_button.layout.display = "flex" if changeable else "none"
        return True

    def _keep_and_write(self) -> None:
        for conflict in self.session.conflicts():
            self.session.resolve(conflict, keep=True)
        self._refresh_views()
        self.write_back()

    def _drop_conflicts(self) -> None:
        changed = 0
        for conflict in self.session.conflicts():
            if conflict.drop_label:
                self.session.resolve(conflict, keep=False)
                changed += len(conflict.citing)
        self._refresh_views()
        self.conflict_box.layout.display = "none"
        self.status.value = html.escape(
            f"Changed the decision on {changed} change(s) citing those sources; look them over, "
            "then click Write back."
        )

    def write_back(self) -> Path | None:
        """Write the final document through the store (lock, history, atomic replace). Nothing
        is written when nothing was accepted. Two decisions that disagree (a rejected source
        that accepted text cites) are asked about first, and nothing is written until they are
        settled. Errors show in the widget."""
        self.error.value = ""
        if self.written is not None:
            self.error.value = "Already written; build a new review to change it again."
            return None
        if self.path is None:
            self.error.value = "This document has no file to write to."
            return None
        try:
            if self._ask_conflicts():
                return None
            result = self.session.result()
            final = result.document.with_path(self.path)
            notes = "".join(f"<br>note: {html.escape(n)}" for n in result.notes if result.changed)
            undecided = self.session.pending
            if final.to_bytes() == self._expected and undecided:
                # nothing decided yet: keep the (paid-for) proposal and the review open
                self.status.value = html.escape(
                    f"Nothing accepted and {len(undecided)} change(s) undecided: nothing written; "
                    "decide them, or use Reject all to discard the proposal."
                )
                return None
            if self._commit is not None:
                written, kept = self._commit(final)
            else:
                written, kept = self._write(final), ""
        except OOError as exc:
            self.error.value = html.escape(str(exc))
            return None
        self.show_written(final, written, kept, notes)
        return written

    def _write(self, final: Document) -> Path | None:
        """A review of no saved proposal: the file is written when something was accepted."""
        from oo_nb.store.store import write_document

        if final.to_bytes() == self._expected:
            return None
        return write_document(final, expected=self._expected, action="review", scrub_secrets=True)

    def decisions_changed(self) -> None:
        """Decisions were taken outside the widget (its proposal's Python calls, a terminal
        review): show them."""
        self._refresh_views()

    def show_written(
        self, final: Document, written: Path | None, kept: str = "", notes: str = ""
    ) -> None:
        """The review is written (here, or through its proposal in Python): say what was
        written (``kept``: what stays saved for a later review), and take no more decisions."""
        assert self.path is not None
        if written is None:
            self.status.value = html.escape(
                f"Nothing accepted: {self.path.name} is unchanged (version {final.manifest.version})."
            )
        else:
            self.status.value = (
                html.escape(
                    f"Wrote version {final.manifest.version} to {written} (the previous version is kept in history)."
                )
                + notes
                + (f"<br>{html.escape(kept)}" if kept else "")
            )
        self.final = final
        self.written = written or self.path
        self._wrote = written is not None
        for view in self.hunk_views.values():
            view.disable()
        for group in self.groups:
            group.disable()
        for button in (self.accept_all_button, self.reject_all_button, self.write_button):
            button.disabled = True
        self.conflict_box.layout.display = "none"
