"""One group of the review widget: the changes of one section (or area) under a header that says
how many changes it holds and how they are decided, folds them, and (for more than one change)
accepts or rejects them all at once.

A group builds its changes' widgets only when it is shown, ``PAGE`` at a time ("Show 50 more"):
each change is a couple of dozen widget models, and a proposal adding a thousand sources must not
make the notebook build (and the browser draw) tens of thousands of them before anything shows.
Every change stays reachable: the header's counts cover them all, group and bulk decisions apply
to the unbuilt ones too, and a change built later shows its decision as it stands."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

import ipywidgets as widgets

from oo_nb.notebook.buttons import Button
from oo_nb.notebook.review_hunk import HunkView
from oo_nb.review.session import ReviewSession

__all__ = ["PAGE", "ReviewGroup"]

PAGE = 50  # changes built at a time when a group is opened


def _n(count: int, word: str) -> str:
    return f"{count:,} {word}{'s' if count != 1 else ''}"


class ReviewGroup:
    """The changes ``ids`` (in document order) under the header ``name``. ``make_view`` builds a
    change's view (the widget registers and wires it); ``decide(ids, decision)`` decides changes
    in bulk. ``opened``: shown (and its first page built) from the start."""

    def __init__(
        self,
        name: str,
        ids: tuple[str, ...],
        session: ReviewSession,
        make_view: Callable[[str], HunkView],
        decide: Callable[[tuple[str, ...], str], None],
        *,
        opened: bool,
    ) -> None:
        self.name, self.ids, self.session = name, ids, session
        self._make_view = make_view
        self.views: list[HunkView] = []
        # one layout and style for the header's buttons, one layout for the boxes (one layout
        # shared by buttons and boxes kept a group's rows from showing in JupyterLab:
        # tests/browser/test_lab_review_scale.py)
        self._layout = widgets.Layout()
        self._box_layout = widgets.Layout()
        self._button_style = widgets.ButtonStyle()
        self.toggle = Button(
            tooltip=f"show or hide the changes in {name}",
            layout=self._layout,
            style=self._button_style,
        )
        self.toggle.add_class("oo-group-toggle")
        self.toggle.on_click(lambda _: self.toggle_open())
        self.accept_button: Button | None = None
        self.reject_button: Button | None = None
        head: widgets.Widget = self.toggle
        if len(ids) > 1:  # one change has its own buttons
            self.accept_button = self._button(
                "Accept group", "oo-accept-group", f"accept every change in {name}"
            )
            self.accept_button.on_click(lambda _: decide(self.ids, "accept"))
            self.reject_button = self._button(
                "Reject group", "oo-reject-group", f"reject every change in {name}"
            )
            self.reject_button.on_click(lambda _: decide(self.ids, "reject"))
            head = widgets.HBox(
                [self.toggle, self.accept_button, self.reject_button], layout=self._box_layout
            )
            head.add_class("oo-group-head")
        # built when there are changes left to show
        self.more_button: widgets.Button | None = None
        # the built changes, in a box of their own: a page more only appends to it, so the
        # browser keeps the views it has (and the focus on "Show 50 more", below it)
        self.rows = widgets.VBox([], layout=self._box_layout)
        self.rows.add_class("oo-group-rows")
        self.body = widgets.VBox([self.rows])
        self.body.add_class("oo-group-body")
        self.box = widgets.VBox([head, self.body], layout=self._box_layout)
        self.box.add_class("oo-group")
        if opened:
            self.show_more()
        else:
            self.body.layout.display = "none"
        self.label()

    def _button(self, label: str, cls: str, tip: str) -> Button:
        button = Button(
            description=label, tooltip=tip, layout=self._layout, style=self._button_style
        )
        button.add_class(cls)
        return button

    @property
    def is_open(self) -> bool:
        return bool(self.body.layout.display != "none")

    @property
    def built(self) -> int:
        """How many of the group's changes have their widgets (the first ``built`` ids)."""
        return len(self.views)

    def toggle_open(self) -> None:
        if self.is_open:
            self.body.layout.display = "none"
        else:
            self.body.layout.display = "flex"
            if not self.views:
                self.show_more()
        self.label()

    def show_more(self, upto: int = 0) -> None:
        """Build the next ``PAGE`` changes' widgets (or up to the ``upto``-th change, if that is
        further)."""
        end = min(len(self.ids), max(self.built + PAGE, upto + 1))
        self.views += [self._make_view(i) for i in self.ids[self.built : end]]
        self.rows.children = tuple(self.views)
        left = len(self.ids) - self.built
        children: list[widgets.Widget] = [self.rows]
        if left:
            if self.more_button is None:
                # keeps focus (stock button): Enter again shows the next page
                self.more_button = widgets.Button()
                self.more_button.add_class("oo-show-more")
                self.more_button.on_click(lambda _: self.show_more())
            step = min(PAGE, left)
            self.more_button.description = f"Show {step:,} more ({left:,} not shown)"
            self.more_button.tooltip = f"show the next {_n(step, 'change')} of {_n(len(self.ids), 'change')} in {self.name}"
            children.append(self.more_button)
        if tuple(children) != self.body.children:
            self.body.children = children

    def open_to(self, hunk_id: str) -> HunkView:
        """Open the group with the change ``hunk_id`` built, and return its view."""
        n = self.ids.index(hunk_id)
        if n >= self.built:
            self.show_more(upto=n)
        if not self.is_open:
            self.toggle_open()
        return self.views[n]

    def label(self) -> None:
        c = Counter(self.session.decision(i) for i in self.ids)
        arrow = "▾" if self.is_open else "▸"
        parts = [
            f"{arrow} {self.name}",
            _n(len(self.ids), "change"),
            f"{c['accept'] + c['edit']:,} accepted",
        ]
        if c["edit"]:
            parts[-1] += f" ({c['edit']:,} edited)"
        if c["reject"]:
            parts.append(f"{c['reject']:,} rejected")
        parts.append(f"{c['pending']:,} undecided" if c["pending"] else "all decided")
        self.toggle.description = " · ".join(parts)

    def disable(self) -> None:
        """After writing back: no more decisions (the changes can still be shown)."""
        for button in (self.accept_button, self.reject_button):
            if button is not None:
                button.disabled = True
