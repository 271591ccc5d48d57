"""Output helpers shared by the subcommands: JSON and rich views of plain dicts."""
import json
import os
import sys
from contextlib import contextmanager

from rich.console import Console
from rich.errors import MarkupError
from rich.markup import escape
from rich.table import Table
from rich.text import Text
from rich.tree import Tree

from pqkit.schema.tree import enum_name  # noqa: F401  (re-exported for the subcommands)


def emit_json(doc, out=None):
    """Write `doc` as indented JSON (bytes as hex) followed by a newline."""
    out = out or sys.stdout
    json.dump(doc, out, indent=2, default=_default, ensure_ascii=False)
    out.write("\n")


def _default(obj):
    if isinstance(obj, (bytes, bytearray)):
        return obj.hex()
    return str(obj)


# The width --wide lays tables out at: every column at its natural width, none left out.
WIDE = 100_000
_layout = {"wide": False}


def console():
    """The console of a human view: the terminal's width, or unbounded under --wide."""
    return Console(highlight=False, soft_wrap=False,
                   width=WIDE if _layout["wide"] else None)


@contextmanager
def wide_layout(wide):
    """While a command runs with ``--wide``, its tables keep every column whole."""
    before = _layout["wide"]
    _layout["wide"] = bool(wide)
    try:
        yield
    finally:
        _layout["wide"] = before


def kv_table(title, rows, wrap=True):
    """A two-column key/value table; rows with value None are left out. Keys never wrap;
    values wrap between words (``wrap``) or are cut with an ellipsis."""
    return Grid(title, ["key", "value"],
                [(str(k), str(v)) for k, v in rows if v is not None],
                wrap=("value",) if wrap else (), show_header=False)


def grid(title, columns, rows, wrap=None, squeeze=(), whole=()):
    """A table with a header row that fits the width it is printed at (see Grid)."""
    return Grid(title, columns, rows, wrap=wrap, squeeze=squeeze, whole=whole)


# Columns whose cells are prose: they wrap between words instead of being cut.
WRAPPING_COLUMNS = frozenset({"message", "value", "detail", "error", "title", "problem"})
# A cell longer than this is a value that may be cut with an ellipsis when space is short.
KEEP_WHOLE = 24
# The narrowest a prose column becomes (unless all its text is narrower).
WRAP_NARROWEST = 20
# How many left-out columns a caption names.
NAMED_LEFT_OUT = 8
# The narrowest a cut value or a wrapping column becomes.
NARROWEST = 12
# Columns that identify a row (besides the first): a cut keeps both ends of their text,
# and they keep at least IDENTIFYING_WIDTH cells (trailing columns are left out first).
IDENTIFYING_COLUMNS = frozenset({"column", "path", "file", "key", "name"})
IDENTIFYING_WIDTH = 20


def cell_width(markup):
    """Terminal cells the widest line of a rich-markup string takes."""
    try:
        text = Text.from_markup(markup)
    except MarkupError:
        text = Text(markup)
    return max((Text(line).cell_len for line in text.plain.split("\n")), default=0)


def _longest_word(markup):
    try:
        plain = Text.from_markup(markup).plain
    except MarkupError:
        plain = markup
    return max((Text(w).cell_len for w in plain.split()), default=0)


class Grid:
    """A table that decides its layout at the width it is rendered at.

    Headers stay on one line; cells of up to KEEP_WHOLE characters (type names,
    column paths, numbers) are never broken; longer cells are cut with "…" before
    anything else gives; prose columns (``wrap``) wrap between words. When even
    that does not fit, trailing columns are left out (the first column always
    stays) and the caption names them: callers list columns by importance.

    The first column and those named in IDENTIFYING_COLUMNS tell rows apart, so a
    cut there happens in the middle (``a_long_col…name_17``), keeping the ends that
    differ. ``squeeze`` columns (values of secondary width, such as bounds) may be
    cut down to NARROWEST even when short, so that the columns after them still fit;
    ``whole`` columns (a commit time needed for time travel) are never cut.
    """

    def __init__(self, title, columns, rows, wrap=None, show_header=True, caption=None,
                 squeeze=(), whole=()):
        self.title = title
        self.columns = list(columns)
        self.rows = [["" if v is None else str(v) for v in row] for row in rows]
        self.wrap = set(WRAPPING_COLUMNS if wrap is None else wrap)
        self.show_header = show_header
        self.caption = caption
        self.squeeze = set(squeeze)
        self.whole = set(whole)

    def _widths(self, i, header):
        """(natural, minimum) width of column i."""
        natural, least = self._natural_widths(i, header)
        if self._identifying(i) and header not in self.squeeze:
            least = max(least, min(natural, IDENTIFYING_WIDTH))
        return natural, least

    def _identifying(self, i):
        return self.columns[i] not in self.wrap and (
            i == 0 or self.columns[i] in IDENTIFYING_COLUMNS)

    def _natural_widths(self, i, header):
        head = cell_width(header) if self.show_header else 0
        lengths = [cell_width(r[i]) for r in self.rows if i < len(r)]
        natural = max([head] + lengths)
        if header in self.wrap:
            longest = max([0] + [_longest_word(r[i]) for r in self.rows if i < len(r)])
            return natural, min(natural, max(head, min(longest, KEEP_WHOLE), WRAP_NARROWEST))
        if header in self.whole:
            return natural, natural
        if header in self.squeeze:
            return natural, min(natural, max(head, NARROWEST))
        # short cells are never cut, even in a column that also holds long ones
        return natural, max([head] + [n if n <= KEEP_WHOLE else NARROWEST for n in lengths])

    def fit(self, width):
        """[(column index, width)] of the columns shown at ``width`` terminal cells."""
        sizes = [self._widths(i, h) for i, h in enumerate(self.columns)]
        keep = list(range(len(self.columns)))
        while len(keep) > 1 and sum(sizes[i][1] for i in keep) + 3 * len(keep) + 1 > width:
            keep.pop()
        widths = {i: sizes[i][0] for i in keep}
        excess = sum(widths.values()) + 3 * len(keep) + 1 - width
        for i in reversed(keep):
            # narrow the last columns first, down to their minimum: the first ones identify
            # the row (column path, key) and stay whole longest
            cut = min(max(excess, 0), widths[i] - sizes[i][1])
            widths[i] -= cut
            excess -= cut
        return [(i, widths[i]) for i in keep]

    def table(self, width):
        shown = self.fit(width)
        kept = {i for i, _ in shown}
        left_out = [c for i, c in enumerate(self.columns) if i not in kept]
        caption = self.caption
        if left_out:
            names = ", ".join(left_out[:NAMED_LEFT_OUT]) + (
                ", …" if len(left_out) > NAMED_LEFT_OUT else "")
            note = (f"{len(left_out)} more column{'s' if len(left_out) > 1 else ''} left out: "
                    f"{names} (a wider terminal or --json shows them)")
            caption = f"{caption}; {note}" if caption else note
        table = Table(title=self.title, title_justify="left", show_header=self.show_header,
                      caption=caption, caption_justify="left")
        for i, w in shown:
            name = self.columns[i]
            wraps = name in self.wrap
            table.add_column(name, style="bold" if not self.show_header and i == 0 else None,
                             no_wrap=not wraps, overflow="fold" if wraps else "ellipsis",
                             width=w)
        columns = {i: [row[i] if i < len(row) else "" for row in self.rows] for i, _ in shown}
        for i, w in shown:
            if self._identifying(i):
                columns[i] = _distinct_cuts(columns[i], w)
        for r in range(len(self.rows)):
            table.add_row(*[columns[i][r] for i, _ in shown])
        return table

    def __rich_console__(self, console, options):
        yield self.table(options.max_width)



def _plain(markup):
    try:
        return Text.from_markup(markup).plain
    except MarkupError:
        return markup


def _distinct_cuts(cells, width):
    """The cells of an identifying column, each cut to ``width`` so that what tells it
    from the others stays: the part between the prefix and the suffix that all the
    cells too long to fit share (``region=north/part-00000-<same id>.parquet`` keeps
    ``north/part-00000``); a lone long cell loses its middle. Cells that fit, and
    cells spread over several lines, stay as they are."""
    long_ = [_plain(c) for c in cells if "\n" not in c and cell_width(c) > width]
    prefix = os.path.commonprefix(long_) if len(long_) > 1 else ""
    suffix = os.path.commonprefix([t[::-1] for t in long_])[::-1] if len(long_) > 1 else ""
    out = []
    for markup in cells:
        if "\n" in markup or cell_width(markup) <= width:
            out.append(markup)
            continue
        text = _plain(markup)
        start, end = len(prefix), max(len(prefix), len(text) - len(suffix))
        out.append(Text(_window(text, width, start, end)))
    return out


def _window(text, width, start, end):
    """``text`` cut to ``width`` cells with "…" where it was cut, showing
    ``text[start:end]`` (the part that differs) when it fits, else both ends."""
    keep = max(width - 1, 2)
    if end - start > keep - 1 or (start == 0 and end == len(text)):
        head = (keep + 1) // 2
        return text[:head] + "…" + text[len(text) - (keep - head):]
    if end <= keep:                                   # the difference is near the start
        return text[:keep] + "…"
    if len(text) - start <= keep:                     # ... or near the end
        return "…" + text[len(text) - keep:]
    inner = keep - 1                                  # an ellipsis at each end
    first = max(0, min(start - (inner - (end - start)) // 2, len(text) - inner))
    return "…" + text[first:first + inner] + "…"


def common_root(paths):
    """(the directory or prefix all ``paths`` share, ending in "/"; each path relative to
    it): a table of files then names each by what tells it from the others. ("", paths)
    for fewer than two paths or no shared directory."""
    paths = list(paths)
    if len(paths) < 2:
        return "", paths
    cut = os.path.commonprefix(paths).rfind("/") + 1
    return paths[0][:cut], [p[cut:] for p in paths]


def problems_grid(problems):
    """The table of problems a subcommand found (kind, where, message)."""
    return grid("Problems", ["kind", "row group", "column", "offset", "message"], [
        (p["kind"], p["row_group"], escape(p["column"] or ""), p["offset"], escape(p["message"]))
        for p in problems])


def tree(label):
    return Tree(label)
