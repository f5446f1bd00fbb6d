"""One hunk of the review widget: title, highlighted change, sandboxed before/after previews,
accept / reject / edit controls and an editor. Agent HTML only ever appears escaped inside a
sandboxed ``<iframe>`` (``preview.iframe``); everything else shown is escaped text."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle  # not re-exported by ipywidgets

from oo_nb.errors import OOError
from oo_nb.notebook.buttons import Button
from oo_nb.review.hunks import Hunk
from oo_nb.review.render_html import hunk_diff_html, plain_value
from oo_nb.review.session import ReviewSession

__all__ = ["HunkView", "change_html", "edited_diff_html", "sandboxed"]

_STATE = {"pending": "undecided", "accept": "accepted", "reject": "rejected", "edit": "edited"}
_PREVIEW_MAX = 360


def sandboxed(fragment: str, label: str, *, wide: bool = False) -> str:
    """A labelled sandboxed ``<iframe>`` of ``fragment``: cleaned, escaped into ``srcdoc``.
    ``wide``: the frame has the whole width (no "before" pane beside it)."""
    from oo_nb.notebook.preview import clean_fragment, iframe, page

    # about 60 characters a line in a half-width pane, 120 in a whole one; the frame stays
    # resizable by hand
    lines = (
        len(re.sub(r"<[^>]*>", "", fragment)) // (120 if wide else 60)
        + 1
        + fragment.count("<li")
        + fragment.count("<tr")
    )
    height = max(80, min(_PREVIEW_MAX, 56 + lines * 25 + fragment.count("<img") * 170))
    return f'<div class="oo-pane-label">{html.escape(label)}</div>' + iframe(
        page(clean_fragment(fragment)), height=height, title=label
    )


def change_html(hunk: Hunk) -> str:
    """The change as the diff line shows it: a new or dropped record (a source, a fact with
    fields) as a compact field / value table, everything else as ``hunk_diff_html`` has it."""
    kinds = {f.kind for f in hunk.fields}
    if hunk.area == "article" or not hunk.fields or len(kinds) != 1 or kinds <= {"changed"}:
        return hunk_diff_html(hunk)
    tag = "ins" if kinds == {"added"} else "del"
    rows = "".join(
        f"<tr><th>{html.escape(f.name)}</th><td><{tag}>"
        f"{html.escape(_plain(f.after if tag == 'ins' else f.before))}</{tag}></td></tr>"
        for f in hunk.fields
    )
    return f'<table class="oo-fields oo-record">{rows}</table>'


def _plain(value: object) -> str:
    return plain_value(value, 400)


def edited_diff_html(hunk: Hunk, clean: str) -> str:
    """The diff line for an edit: the text as it was, against the text as edited (escaped)."""
    from oo_nb.review.units import text_of
    from oo_nb.review.words import word_diff

    edited = text_of(clean)
    ops = word_diff(hunk.before_text, edited) if hunk.before_text else ()
    if not ops:
        body = f"<ins>{html.escape(edited)}</ins>"
    else:
        body = "".join(
            html.escape(w.text)
            if w.op == "="
            else f"<{'del' if w.op == '-' else 'ins'}>{html.escape(w.text)}</{'del' if w.op == '-' else 'ins'}>"
            for w in ops
        )
    return f'<div class="oo-words oo-edited"><span class="oo-note">your edit:</span> {body}</div>'


class HunkView(widgets.VBox):  # type: ignore[misc]
    """The view of one decidable hunk. ``changed`` is called after every decision."""

    def __init__(self, session: ReviewSession, hunk: Hunk, changed: Callable[[], None]) -> None:
        self.session, self.hunk, self._changed = session, hunk, changed
        title = (
            f'<span class="oo-kind">{html.escape(hunk.kind)}</span> · {html.escape(hunk.title)}'
            + (' · <span class="oo-unverified">unverified source</span>' if hunk.unverified else "")
            + "".join(
                f' · <span class="{"oo-quote-found" if b == "quote found" else "oo-unverified"}">'
                f"{html.escape(b)}</span>"
                for b in hunk.badges
            )
            + "".join(f'<div class="oo-cited">cited {html.escape(c)}</div>' for c in hunk.cited)
        )
        # One layout and one style model for this change's widgets whose layout never changes
        # (the edit area's does): each widget's own were 3 of every 4 models a notebook saves
        # with its widget state (a 4-change proposal: 293 KB of state, layouts 140 KB of it).
        self._layout = widgets.Layout()
        self._html_style = HTMLStyle()
        self._button_style = widgets.ButtonStyle()
        self.title = self._html(title)
        self.title.add_class("oo-hunk-title")
        self.state = self._html()
        self.state.add_class("oo-state")
        self.diff = self._html(change_html(hunk))
        self.diff.add_class("oo-diff")
        self.accept_button = self._button(
            "Accept", "oo-accept", "accept this change", lambda: session.accept(hunk.id)
        )
        self.reject_button = self._button(
            "Reject", "oo-reject", "keep the text as it was", lambda: session.reject(hunk.id)
        )
        controls = [self.accept_button, self.reject_button]
        self.edit_button: Button | None = None
        # The editor is built on the first "Edit": five widgets fewer per change until then.
        self.editor: widgets.Textarea | None = None
        # the typed text whose cleaning was shown; a second "Use edit" on it uses the edit
        self._warned: str | None = None
        self.save_edit_button: Button | None = None
        self.cancel_edit_button: Button | None = None
        # only article text is editable, and only article text has before/after frames: a
        # source or a field goes without those widgets (a proposal may add a thousand sources)
        self.edit_area: widgets.VBox | None = None
        if hunk.editable:
            self.edit_area = widgets.VBox([])
            self.edit_area.add_class("oo-edit-area")
            self.edit_area.layout.display = "none"
            self.edit_button = Button(
                description="Edit",
                tooltip="edit the proposed text",
                layout=self._layout,
                style=self._button_style,
            )
            self.edit_button.add_class("oo-edit")
            self.edit_button.on_click(lambda _: self._show_editor(True))
            controls.append(self.edit_button)
        # the state beside its buttons
        self.controls = widgets.HBox([*controls, self.state], layout=self._layout)
        self.controls.add_class("oo-controls")
        self.error = self._html()
        self.error.add_class("oo-hunk-error")
        self.after_pane: widgets.HTML | None = None
        self._panes: widgets.HBox | None = None
        children: list[widgets.Widget] = [self.title, self.diff]
        if hunk.area == "article":
            self.after_pane = self._html()
            self._panes = widgets.HBox([], layout=self._layout)
            self._panes.add_class("oo-hunk-preview")
            panes = []
            if hunk.before_html:
                wide = not hunk.after_html
                before = sandboxed(self._thumbs(hunk.before_html), "before", wide=wide)
                panes.append(self._html(before))
            if hunk.after_html:
                panes.append(self.after_pane)
            self._panes.children = panes
            children.append(self._panes)
        children.append(self.controls)
        if self.edit_area is not None:
            children.append(self.edit_area)
        children.append(self.error)
        super().__init__(children, layout=self._layout)
        for cls in (
            "oo-hunk",
            f"oo-hunk-{hunk.kind}",
            f"oo-area-{hunk.area}",
            f"oo-hunk-{hunk.index}",
        ):
            self.add_class(cls)
        self.refresh()

    def _html(self, value: str = "") -> widgets.HTML:
        return widgets.HTML(value, layout=self._layout, style=self._html_style)

    def _thumbs(self, fragment: str) -> str:
        return self.session.diff.images.thumbnails(fragment)

    def _button(self, label: str, cls: str, tip: str, act: Callable[[], None]) -> Button:
        button = Button(
            description=label, tooltip=tip, layout=self._layout, style=self._button_style
        )
        button.add_class(cls)

        def click(_: Button) -> None:
            act()
            self._show_editor(False)
            self.refresh()
            self._changed()

        button.on_click(click)
        return button

    def _build_editor(self) -> widgets.Textarea:
        editor = widgets.Textarea(layout=widgets.Layout(width="100%", height="150px"))
        editor.add_class("oo-editor")
        save = Button(description="Use edit", button_style="info", tooltip="use the edited text")
        save.add_class("oo-save-edit")
        save.on_click(lambda _: self.save_edit())
        cancel = Button(description="Cancel")
        cancel.add_class("oo-cancel-edit")
        cancel.on_click(lambda _: self._show_editor(False))
        self.editor, self.save_edit_button, self.cancel_edit_button = editor, save, cancel
        assert self.edit_area is not None  # built for editable hunks, the only ones with "Edit"
        hint = widgets.HTML(
            '<span class="oo-note">Plain text is fine: [s3] cites source 3, a blank line starts '
            "a new paragraph; HTML is optional.</span>"
        )
        hint.add_class("oo-edit-hint")
        self.edit_area.children = [hint, editor, widgets.HBox([save, cancel])]
        return editor

    def _show_editor(self, show: bool) -> None:
        if self.edit_area is None:
            return
        if show:
            editor = self.editor or self._build_editor()
            editor.value = self.session.editor_text(self.hunk.id)
            self.error.value = ""
        self.edit_area.layout.display = "flex" if show else "none"

    def save_edit(self) -> None:
        """Use the typed text; when cleaning would take something out of it, say what first
        and use it on the next click (the text unchanged)."""
        if self.editor is None:
            return
        typed = self.editor.value
        try:
            check = self.session.check_edit(self.hunk.id, typed)
            if check.removed and self._warned != typed:
                self._warned = typed
                self.error.value = (
                    '<span class="oo-error">Not used yet: these are never written into a '
                    "document and will be removed: "
                    + html.escape("; ".join(check.removed))
                    + ". Click “Use edit” again to use the text without them.</span>"
                )
                return
            self.session.edit(self.hunk.id, typed)
        except OOError as exc:
            self.error.value = f'<span class="oo-error">{html.escape(str(exc))}</span>'
            return
        self._warned = None
        self.error.value = ""
        self._show_editor(False)
        self.refresh()
        self._changed()

    def refresh(self) -> None:
        choice = self.session.choice(self.hunk.id)
        decision = choice.decision
        edited = choice.html if decision == "edit" else None
        # the diff line shows what will be written: the edit while there is one
        self.diff.value = (
            edited_diff_html(self.hunk, edited) if edited is not None else change_html(self.hunk)
        )
        self.state.value = html.escape(_STATE[decision])
        self.accept_button.button_style = "success" if decision == "accept" else ""
        self.reject_button.button_style = "danger" if decision == "reject" else ""
        if self.edit_button is not None:
            self.edit_button.button_style = "info" if decision == "edit" else ""
        self._after_pane(edited)
        for d in _STATE:
            self.remove_class(f"oo-decided-{d}")
        self.add_class(f"oo-decided-{decision}")

    def _after_pane(self, edited: str | None) -> None:
        """The "after" frame shows the edit while there is one, else the proposal."""
        if self.after_pane is None or self._panes is None:  # not article text
            return
        if edited is not None:
            fragment, label = self.session.diff.images.shrink(edited)[0], "after (your edit)"
        elif self.hunk.after_html:
            fragment, label = self.hunk.after_html, "after (proposed)"
        else:
            return
        value = sandboxed(self._thumbs(fragment), label, wide=not self.hunk.before_html)
        if self.after_pane.value != value:
            self.after_pane.value = value
        if self.after_pane not in self._panes.children:  # a removal edited: show the edit
            self._panes.children = (*self._panes.children, self.after_pane)

    def disable(self) -> None:
        for control in (
            self.accept_button,
            self.reject_button,
            self.edit_button,
            self.save_edit_button,
            self.editor,
        ):
            if control is not None:
                control.disabled = True
