"""One hunk of the review widget: title, highlighted change, sandboxed before/after previews,
accept / reject / edit controls and an editor. Agent HTML only ever appears escaped inside a
``<iframe sandbox="">``; everything else shown is escaped text."""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import ipywidgets as widgets

from oo_nb.errors import OOError
from oo_nb.review.hunks import Hunk
from oo_nb.review.render_html import hunk_diff_html
from oo_nb.review.session import ReviewSession

__all__ = ["HunkView", "sandboxed"]

_STATE = {"pending": "undecided", "accept": "accepted", "reject": "rejected", "edit": "edited"}
_PREVIEW_MAX = 360


def sandboxed(fragment: str, label: str) -> str:
    """A labelled ``<iframe sandbox="">`` of ``fragment``: cleaned, escaped into ``srcdoc``."""
    from oo_nb.notebook.preview import clean_fragment, iframe, page

    # about 60 characters a line in a half-width pane; the frame stays resizable by hand
    lines = (
        len(re.sub(r"<[^>]*>", "", fragment)) // 60
        + 1
        + fragment.count("<li")
        + fragment.count("<tr")
    )
    height = max(80, min(_PREVIEW_MAX, 56 + lines * 25 + fragment.count("<img") * 170))
    return f'<div class="oo-pane-label">{html.escape(label)}</div>' + iframe(
        page(clean_fragment(fragment)), height=height, title=label
    )


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
        self.title = widgets.HTML(title)
        self.title.add_class("oo-hunk-title")
        self.state = widgets.HTML()
        self.state.add_class("oo-state")
        self.diff = widgets.HTML(hunk_diff_html(hunk))
        self.diff.add_class("oo-diff")
        self.accept_button = self._button(
            "Accept", "oo-accept", "accept this change", lambda: session.accept(hunk.id)
        )
        self.reject_button = self._button(
            "Reject", "oo-reject", "keep the text as it was", lambda: session.reject(hunk.id)
        )
        controls = [self.accept_button, self.reject_button]
        self.edit_button: widgets.Button | None = None
        # The editor is built on the first "Edit": five widgets fewer per change until then.
        self.editor: widgets.Textarea | None = None
        self.save_edit_button: widgets.Button | None = None
        self.cancel_edit_button: widgets.Button | None = None
        self.edit_area = widgets.VBox([])
        self.edit_area.add_class("oo-edit-area")
        self.edit_area.layout.display = "none"
        if hunk.editable:
            self.edit_button = widgets.Button(description="Edit", tooltip="edit the proposed HTML")
            self.edit_button.add_class("oo-edit")
            self.edit_button.on_click(lambda _: self._show_editor(True))
            controls.append(self.edit_button)
        self.controls = widgets.HBox(controls)
        self.controls.add_class("oo-controls")
        self.error = widgets.HTML()
        self.error.add_class("oo-hunk-error")
        self.after_pane = widgets.HTML()
        children: list[widgets.Widget] = [self.title, self.diff]
        if hunk.area == "article":
            panes = []
            if hunk.before_html:
                panes.append(widgets.HTML(sandboxed(self._thumbs(hunk.before_html), "before")))
            if hunk.after_html:
                self.after_pane.value = sandboxed(self._thumbs(hunk.after_html), "after (proposed)")
                panes.append(self.after_pane)
            preview = widgets.HBox(panes)
            preview.add_class("oo-hunk-preview")
            children.append(preview)
        children += [self.controls, self.state, self.edit_area, self.error]
        super().__init__(children)
        for cls in (
            "oo-hunk",
            f"oo-hunk-{hunk.kind}",
            f"oo-area-{hunk.area}",
            f"oo-hunk-{hunk.index}",
        ):
            self.add_class(cls)
        self.refresh()

    def _thumbs(self, fragment: str) -> str:
        return self.session.diff.images.thumbnails(fragment)

    def _button(self, label: str, cls: str, tip: str, act: Callable[[], None]) -> widgets.Button:
        button = widgets.Button(description=label, tooltip=tip)
        button.add_class(cls)

        def click(_: widgets.Button) -> None:
            act()
            self._show_editor(False)
            self.refresh()
            self._changed()

        button.on_click(click)
        return button

    def _build_editor(self) -> widgets.Textarea:
        editor = widgets.Textarea(layout=widgets.Layout(width="100%", height="150px"))
        editor.add_class("oo-editor")
        save = widgets.Button(
            description="Use edit", button_style="info", tooltip="use the edited HTML"
        )
        save.add_class("oo-save-edit")
        save.on_click(lambda _: self.save_edit())
        cancel = widgets.Button(description="Cancel")
        cancel.add_class("oo-cancel-edit")
        cancel.on_click(lambda _: self._show_editor(False))
        self.editor, self.save_edit_button, self.cancel_edit_button = editor, save, cancel
        self.edit_area.children = [editor, widgets.HBox([save, cancel])]
        return editor

    def _show_editor(self, show: bool) -> None:
        if show:
            editor = self.editor or self._build_editor()
            editor.value = self.session.editor_text(self.hunk.id)
            self.error.value = ""
        self.edit_area.layout.display = "flex" if show else "none"

    def save_edit(self) -> None:
        if self.editor is None:
            return
        try:
            clean = self.session.edit(self.hunk.id, self.editor.value)
        except OOError as exc:
            self.error.value = f'<span class="oo-error">{html.escape(str(exc))}</span>'
            return
        self.error.value = ""
        self.after_pane.value = sandboxed(
            self._thumbs(self.session.diff.images.shrink(clean)[0]), "after (your edit)"
        )
        self._show_editor(False)
        self.refresh()
        self._changed()

    def refresh(self) -> None:
        decision = self.session.decision(self.hunk.id)
        self.state.value = html.escape(_STATE[decision])
        self.accept_button.button_style = "success" if decision == "accept" else ""
        self.reject_button.button_style = "danger" if decision == "reject" else ""
        if self.edit_button is not None:
            self.edit_button.button_style = "info" if decision == "edit" else ""
        for d in _STATE:
            self.remove_class(f"oo-decided-{d}")
        self.add_class(f"oo-decided-{decision}")

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
