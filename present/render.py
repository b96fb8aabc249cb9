"""Rule references and card sheets as Markdown, HTML, reStructuredText and PDF.

HTML comes from Jinja2 templates with autoescape on (present/templates/); a pack overrides any of
them with a file of the same name in its own `templates/` folder. Markdown and reStructuredText are
written here and escape every text that comes from a pack. PDF goes through WeasyPrint, an optional
dependency (`pip install 'cardsmith[pdf]'`): `pdf_engine()` raises `PdfUnavailable` with the
install instructions when it cannot be imported.
"""

from __future__ import annotations

import colorsys
import hashlib
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2
import jinja2.sandbox

from .reference import CardEntry, Reference, Section

TEMPLATES = Path(__file__).resolve().parent / "templates"

CARD_W, CARD_H, BLEED = 63.0, 88.0, 3.0
COLS, ROWS = 3, 3
PAPERS = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}

PDF_HELP = ("PDF output needs WeasyPrint, an optional dependency of cardsmith. Install it with\n"
            "    python3 -m pip install 'cardsmith[pdf]'      (or: pip install weasyprint)\n"
            "WeasyPrint also needs the Pango text library, and Japanese text needs a CJK font; on Debian or Ubuntu:\n"
            "    apt-get install libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 fonts-noto-cjk\n"
            "HTML and Markdown output work without it (--format html|md).")


class PdfUnavailable(RuntimeError):
    """WeasyPrint (or the system libraries it loads) is missing."""


def pdf_engine():
    """The weasyprint module, or PdfUnavailable saying how to install it."""
    try:
        import weasyprint
    except (ImportError, OSError) as e:  # OSError: the module is there but Pango is not
        raise PdfUnavailable(f"{PDF_HELP}\n(import failed: {e})") from e
    return weasyprint


# ------------------------------------------------------------------------------ templates
# Packs are data and may come from strangers, and a pack may ship templates/: every template, ours and
# packs', renders in Jinja2's immutable sandbox (no attribute that starts with '_', no method that
# changes a value, no call into Python's internals). A template that breaks a rule of the sandbox, or
# fails in any other way, is a TemplateError naming the template file and line; nothing is written.

MAX_TEMPLATE_ITEMS = 1_000_000  # the largest string or list a template may make with * or **


class TemplateError(Exception):
    """A template could not be rendered. `file` is the template's path, `line` its 1-based line (0 when
    unknown)."""

    def __init__(self, message: str, file: str, line: int) -> None:
        super().__init__(message)
        self.message, self.file, self.line = message, file, line

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.message}"


class _Sandbox(jinja2.sandbox.ImmutableSandboxedEnvironment):
    """The immutable sandbox, which also refuses arithmetic that would build huge values."""

    intercepted_binops = frozenset({"*", "**"})

    def call_binop(self, context, operator: str, left, right):
        if operator == "**" and isinstance(right, int) and abs(right) > 64:
            raise jinja2.sandbox.SecurityError("a power above 64 is not allowed in a template")
        if operator == "*":
            for size, times in ((left, right), (right, left)):
                if isinstance(size, str | list | tuple) and isinstance(times, int) and \
                        len(size) * times > MAX_TEMPLATE_ITEMS:
                    raise jinja2.sandbox.SecurityError(f"a template may not build a value of more than "
                                                       f"{MAX_TEMPLATE_ITEMS:,} items")
        return super().call_binop(context, operator, left, right)


def environment(pack_folder: Path | None = None) -> jinja2.Environment:
    """The sandboxed Jinja2 environment, autoescape on; a pack's own templates/ folder comes first.

    A pack's templates are read only from regular files inside its templates/ folder: a symbolic link
    that leads out of it is not followed (it would let a template print any file the user can read)."""
    loaders: list[jinja2.BaseLoader] = []
    if pack_folder is not None and (Path(pack_folder) / "templates").is_dir():
        loaders.append(_PackTemplates(Path(pack_folder) / "templates"))
    loaders.append(jinja2.FileSystemLoader(str(TEMPLATES)))
    return _Sandbox(loader=jinja2.ChoiceLoader(loaders), autoescape=True, trim_blocks=False,
                    lstrip_blocks=False, undefined=jinja2.StrictUndefined)


class _PackTemplates(jinja2.FileSystemLoader):
    """A pack's templates: regular files that really lie inside the folder."""

    def __init__(self, folder: Path) -> None:
        super().__init__(str(folder))
        self.root = folder.resolve()

    def get_source(self, environment, template):
        path = Path(self.searchpath[0]) / template
        if path.exists():
            real = path.resolve()
            if not real.is_relative_to(self.root) or not real.is_file():
                raise TemplateError("a pack's template must be a regular file inside its templates/ folder "
                                    "(symbolic links out of it are not followed)", str(path), 0)
        return super().get_source(environment, template)


def render_template(env: jinja2.Environment, name: str, **context) -> str:
    """Render a template; any failure, a sandbox violation included, is a TemplateError with its place."""
    try:
        return env.get_template(name).render(**context)
    except TemplateError:
        raise
    except jinja2.TemplateSyntaxError as e:
        raise TemplateError(f"the template does not parse: {e.message}", e.filename or name, e.lineno or 0) \
            from None
    except jinja2.sandbox.SecurityError as e:
        file, line = _template_place(e, name)
        raise TemplateError(f"the template tried something templates may not do: {e}", file, line) from None
    except jinja2.TemplateError as e:  # undefined names, bad filters
        file, line = _template_place(e, name)
        raise TemplateError(f"the template failed: {e.message or type(e).__name__}", file, line) from None
    except (ArithmeticError, LookupError, TypeError, ValueError, AttributeError, RecursionError,
            MemoryError) as e:
        file, line = _template_place(e, name)
        raise TemplateError(f"the template failed: {type(e).__name__}: {e}", file, line) from None


def _template_place(exc: BaseException, name: str) -> tuple[str, int]:
    """The template file and line where an error was raised, from the frames Jinja2 gives templates."""
    import traceback

    place = (name, 0)
    for frame in traceback.extract_tb(exc.__traceback__):
        if frame.filename.endswith((".j2", ".html", ".css")) and frame.lineno:
            place = (frame.filename, frame.lineno)
    return place


def render_html(ref: Reference, pack_folder: Path | None = None) -> str:
    icons = {i.timing: i for i in ref.timings}
    boards = {t.title: t for t in board_tables(ref)}  # catalogue groups that are parts of a board: tables
    return render_template(environment(pack_folder), "reference.html.j2", ref=ref, L=ref.labels, icons=icons,
                           boards=boards)


def html_to_pdf(html: str, path: str | Path, base_url: str | None = None) -> int:
    """Write the PDF of the HTML; returns how many pages it has."""
    weasyprint = pdf_engine()
    doc = weasyprint.HTML(string=html, base_url=base_url or str(TEMPLATES), url_fetcher=_local_fetcher()).render()
    doc.write_pdf(str(path))
    return len(doc.pages)


def _may_load(url: str) -> bool:
    """What the PDF engine may load for a page: inline data (the icons), and files among our templates. A
    pack's HTML must not pull other files of the machine, or anything from the network, into the PDF."""
    if url.startswith("data:"):
        return True
    if url.startswith("file://"):
        from urllib.parse import unquote, urlparse

        real = Path(unquote(urlparse(url).path)).resolve()
        return real.is_relative_to(TEMPLATES.resolve()) and real.is_file()
    return False


def _local_fetcher():
    """A URL fetcher that loads only what `_may_load` allows: a URLFetcher subclass for WeasyPrint 68 and
    later, a function around default_url_fetcher for earlier versions."""
    import weasyprint

    if hasattr(weasyprint, "URLFetcher"):
        class LocalOnly(weasyprint.URLFetcher):
            def fetch(self, url, headers=None):
                if not _may_load(url):
                    raise ValueError(f"not loaded into the PDF: {url[:80]}")
                return super().fetch(url, headers)

        return LocalOnly()

    def fetch(url: str, *args, **kwargs):
        if not _may_load(url):
            raise ValueError(f"not loaded into the PDF: {url[:80]}")
        return weasyprint.default_url_fetcher(url, *args, **kwargs)

    return fetch


# ------------------------------------------------------------------------------ Markdown

_MD_SPECIAL = re.compile(r"([\\`*_\[\]{}#|!])")


def md(text) -> str:
    """Text from a pack, safe in Markdown: no markup, no raw HTML."""
    s = str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD_SPECIAL.sub(r"\\\1", s)


_EMOJI = {"#3d9a3d": "🟢", "#c8372d": "🔴", "#2f6fc0": "🔵", "#d9a900": "🟡", "#222222": "⚫", "#8b5a2b": "🟤",
          "#7b4fa0": "🟣", "#e07a1f": "🟠", "#f4f4f4": "⚪"}


def md_icon(icon) -> str:
    marks = [_EMOJI.get(c, "◆") for c in icon.colours]
    return "".join(marks[:3])


def activation_ascii(d: dict, lang: str) -> str:
    arrow = " → "
    lines = []
    block = arrow.join(f"[{i + 1}. {b}]" for i, b in enumerate(d["block"]))
    pos = d["position"]
    if d["block"] and pos in ("before", "before-or-after"):
        lines.append(("A: " if pos == "before-or-after" else "") + block + arrow + d["main"])
    if d["block"] and pos in ("after", "before-or-after"):
        lines.append(("B: " if pos == "before-or-after" else "") + d["main"] + arrow + block)
    if d["cells"]:
        lines.append("")
        lines.append(f"{d['main']}:")
        for row in d["cells"]:
            lines.append("  " + " → ".join(f"{n:2d}" for n in row) + (" → …" if d.get("open") else ""))
    return "\n".join(lines)


def render_markdown(ref: Reference) -> str:
    L = ref.labels
    out = [f"# {md(ref.pack_name)}", "", f"*{md(L['reference'])} · {md(ref.pack_id)} {md(ref.version)}*", ""]
    out.append(f"## {md(L['contents'])}")
    out.append("")
    for i, s in enumerate(ref.sections, 1):
        out.append(f"{i}. [{md(s.title)}](#{s.id})")
    out.append(f"{len(ref.sections) + 1}. [{md(L['catalogue'])}](#catalogue)")
    out.append(f"{len(ref.sections) + 2}. [{md(L['index'])}](#index)")
    out.append("")
    icons = {i.timing: i for i in ref.timings}

    def steps(items, ordered, depth):  # sub-steps of a procedure are numbered too
        for i, st in enumerate(items, 1):
            bullet = f"{i}." if ordered else "-"
            out.append("   " * depth + f"{bullet} {md(st.text)}")
            steps(st.children, ordered, depth + 1)

    def section(s: Section, level: int):
        out.append(f'<a id="{s.id}"></a>')
        out.append("")
        out.append("#" * level + " " + md(s.title))
        out.append("")
        for b in s.blocks:
            if b.kind == "p":
                out.append(md(b.text))
            elif b.kind == "steps":
                steps(b.steps, b.ordered, 0)
            elif b.kind in ("table", "timings"):
                head = b.head
                out.append("| " + " | ".join(md(h) for h in head) + " |")
                out.append("|" + "---|" * len(head))
                for row in b.rows:
                    cells = [md_icon(icons[row[0]]) if b.kind == "timings" else md(row[0]), *(md(c) for c in row[1:])]
                    out.append("| " + " | ".join(cells) + " |")
            elif b.kind in ("parts", "defs"):
                for k, v in b.items:
                    out.append(f"- **{md(k)}**: {md(v)}")
            elif b.kind == "procedure":
                out.append(f"- **{md(b.text)}**:")
                steps(b.steps, True, 1)
            elif b.kind == "activation":
                out.append("```")
                out.append(activation_ascii(b.data, ref.lang))
                out.append("```")
            out.append("")
        for sub in s.subsections:
            section(sub, level + 1)

    for s in ref.sections:
        section(s, 2)
    out += ['<a id="catalogue"></a>', "", f"## {md(L['catalogue'])}", ""]
    boards = {t.title: t for t in board_tables(ref)}
    for group, cards in ref.card_groups:
        out += [f"### {md(group)} — {md(ref.group_counts.get(group, len(cards)))}", ""]
        if group in boards:  # parts of a board: one table
            t = boards[group]
            out += [f"*{md(L['board_note'])}*", "", "| " + " | ".join(md(h) for h in t.head) + " | |",
                    "|" + "---|" * (len(t.head) + 1)]
            for c, cells in t.rows:
                text = " ".join(f"{md_icon(a.icon)} {md(a.text)}" for a in c.abilities)
                first, *rest = [md(v) for v in cells]
                out.append(f'| <a id="{c.anchor}"></a>{first} | ' + " | ".join(rest) + f" | {text} |")
            out.append("")
            continue
        for c in cards:
            heading = f"#### {md(c.name)}" + (f" ({md(c.alt_name)})" if c.alt_name else "")
            out += [f'<a id="{c.anchor}"></a>', "", heading,
                    "", md_facts(c, L), ""]
            for a in c.abilities:
                out.append(f"- {md_icon(a.icon)} **{md(a.icon.label)}**: {md(a.text)}")
            out.append("")
    out += ['<a id="index"></a>', "", f"## {md(L['index'])}", ""]
    for c in ref.index:
        out.append(f"- [{md(c.name)}](#{c.anchor})")
    out.append("")
    return "\n".join(out)


def md_facts(c: CardEntry, L: dict) -> str:
    facts = [c.type, *c.traits]
    if c.cost is not None:
        facts.append(f"{L.get('cost', 'cost')} {c.cost}")
    facts += [f"{k} {v}" for k, v in c.stats]
    if c.copies > 1:
        facts.append(f"×{c.copies}")
    if c.number:
        facts.append(f"{L['number']} {c.number}")
    text = " · ".join(md(f) for f in facts if f != "")
    if c.back_anchor:
        text += f" · {md(L['back'])}: [{md(c.back_name)}](#{c.back_anchor})"
    return f"*{text}*" if text else ""


# ------------------------------------------------------------------------------ reStructuredText

_RST_SPECIAL = re.compile(r"([\\`*_|\[\]<>:])")


def rst(text) -> str:
    """Text from a pack, inert in reStructuredText (no roles, no references, no emphasis)."""
    s = str(text).replace("\n", " ")
    return _RST_SPECIAL.sub(r"\\\1", s)


def _rst_title(text: str, char: str) -> list[str]:
    t = rst(text)
    width = sum(2 if ord(ch) > 0x2E80 else 1 for ch in t)
    return [t, char * max(width, 3), ""]


RST_LEVELS = "=-~^\"'"


def render_rst(ref: Reference, top_level: int = 0, catalogue: bool = True, label_prefix: str = "") -> str:
    """The reference as reStructuredText for Sphinx; section titles start at RST_LEVELS[top_level]."""
    L = ref.labels
    lines: list[str] = []
    icons = {i.timing: i for i in ref.timings}

    def title(text, level, label=None):
        if label:
            lines.extend([f".. _{label_prefix}{label}:", ""])
        lines.extend(_rst_title(text, RST_LEVELS[min(top_level + level, len(RST_LEVELS) - 1)]))

    def steps(items, ordered, depth):
        for i, st in enumerate(items, 1):
            bullet = f"{i}." if ordered else "-"
            lines.append("   " * depth + f"{bullet} {rst(st.text)}")
            if st.children:
                lines.append("")
                steps(st.children, ordered, depth + 1)
                lines.append("")
        lines.append("")

    def table(head, rows):
        ncols = max(len(head), *(len(r) for r in rows)) if rows else len(head)
        lines.append(".. list-table::")
        if any(head):
            lines.append("   :header-rows: 1")
        lines.append("")
        for r in ([head] if any(head) else []) + rows:
            cells = [*r, *[""] * (ncols - len(r))]
            lines.append(f"   * - {cells[0] or ' '}")
            for c in cells[1:]:
                lines.append(f"     - {c or ' '}")
        lines.append("")

    def section(s: Section, level: int):
        title(s.title, level, f"{ref.pack_id}-{s.id}")
        for b in s.blocks:
            if b.kind == "p":
                lines.extend([rst(b.text), ""])
            elif b.kind == "steps":
                steps(b.steps, b.ordered, 0)
            elif b.kind == "table":
                table([rst(h) for h in b.head], [[rst(c) for c in r] for r in b.rows])
            elif b.kind == "timings":
                table([rst(h) for h in b.head],
                      [[md_icon(icons[r[0]]), *(rst(c) for c in r[1:])] for r in b.rows])
            elif b.kind in ("parts", "defs"):
                for k, v in b.items:
                    lines.extend([f"**{rst(k)}**", f"   {rst(v)}", ""])
            elif b.kind == "procedure":
                lines.extend([f"**{rst(b.text)}**", ""])
                steps(b.steps, True, 1)
            elif b.kind == "activation":
                lines.extend([".. code-block:: none", ""])
                lines.extend("   " + ln for ln in activation_ascii(b.data, ref.lang).splitlines())
                lines.append("")
        for sub in s.subsections:
            section(sub, level + 1)

    for s in ref.sections:
        section(s, 0)
    if catalogue:
        title(L["catalogue"], 0, f"{ref.pack_id}-catalogue")
        for group, cards in ref.card_groups:
            title(f"{group} — {ref.group_counts.get(group, len(cards))}", 1)
            for c in cards:
                lines.extend([f".. _{label_prefix}{c.anchor}:", ""])
                name = rst(c.name) + (f" ({rst(c.alt_name)})" if c.alt_name else "")
                lines.extend([f"**{name}**", ""])
                facts = [c.type, *c.traits]
                if c.cost is not None:
                    facts.append(f"{L.get('cost', 'cost')} {c.cost}")
                facts += [f"{k} {v}" for k, v in c.stats]
                if c.copies > 1:
                    facts.append(f"×{c.copies}")
                text = " · ".join(rst(f) for f in facts if f != "")
                if c.back_anchor:
                    text += f" · {rst(L['back'])}: :ref:`{rst(c.back_name)} <{label_prefix}{c.back_anchor}>`"
                lines.extend([f"   {text}", ""])
                for a in c.abilities:
                    lines.append(f"   - {md_icon(a.icon)} **{rst(a.icon.label)}**: {rst(a.text)}")
                lines.append("")
        title(L["index"], 0, f"{ref.pack_id}-index")
        lines.append(", ".join(f":ref:`{rst(c.name)} <{label_prefix}{c.anchor}>`" for c in ref.index))
        lines.append("")
    return "\n".join(lines)


# ------------------------------------------------------------------------------ card sheets


@dataclass
class Slot:
    x: float
    y: float
    w: float
    h: float
    bl: float  # bleed on the left of the trim box (the face sits this far in)
    bt: float
    colour: str
    accent: str
    size: str
    kind: str  # front | back
    card: CardEntry | None = None
    back: dict | None = None


@dataclass
class Page:
    kind: str  # front | back
    slots: list[Slot] = field(default_factory=list)
    marks: list[dict] = field(default_factory=list)


def type_colours(type_id: str) -> tuple[str, str]:
    """A light background and a stronger accent for a card type, stable across runs."""
    h = int(hashlib.sha1(type_id.encode()).hexdigest()[:4], 16) / 0xFFFF
    light = colorsys.hls_to_rgb(h, 0.88, 0.45)
    accent = colorsys.hls_to_rgb(h, 0.55, 0.45)

    def css(rgb):
        return "#" + "".join(f"{int(v * 255):02x}" for v in rgb)

    return css(light), css(accent)


def text_size(c: CardEntry) -> str:
    n = c.text_length
    if n <= 80:
        return "t9"
    return "t8" if n <= 160 else "t7" if n <= 280 else "t6" if n <= 450 else "t5" if n <= 700 else "t4"


def sheet_cards(ref: Reference, backs: bool = False, copies: bool = False) -> list[CardEntry]:
    """The faces the sheets print as cards: every card a player holds (not the parts of a board, which
    print as tables), one per copy with `copies`, and with `backs` only the front of a double-sided card."""
    faces = [c for c in ref.cards if not c.board and not (backs and c.is_back)]
    if copies:
        faces = [c for c in faces for _ in range(max(1, c.copies))]
    return faces


def sheet_pages(ref: Reference, paper: str = "a4", backs: bool = False, copies: bool = False) -> list[Page]:
    """Card faces laid out 3 x 3 per page. With backs, each front page is followed by its back page,
    mirrored left to right so that long-edge duplex printing puts every back behind its front."""
    pw, ph = PAPERS[paper]
    by_id = {c.id: c for c in ref.cards}
    faces = sheet_cards(ref, backs, copies)
    per = COLS * ROWS
    x0, y0 = (pw - COLS * CARD_W) / 2, (ph - ROWS * CARD_H) / 2
    pages: list[Page] = []
    for start in range(0, len(faces), per):
        chunk = faces[start:start + per]
        filled = {i for i in range(len(chunk))}
        front = Page("front", marks=crop_marks(x0, y0, pw, ph))
        back = Page("back", marks=crop_marks(x0, y0, pw, ph))
        for i, c in enumerate(chunk):
            r, col = divmod(i, COLS)
            front.slots.append(_slot(c, r, col, x0, y0, filled, "front", ref))
            if backs:
                mirrored = COLS - 1 - col
                mfilled = {rr * COLS + (COLS - 1 - cc) for rr, cc in (divmod(j, COLS) for j in filled)}
                other = by_id.get(c.back_id) if c.back_id else None
                if other is not None:
                    back.slots.append(_slot(other, r, mirrored, x0, y0, mfilled, "front", ref))
                else:
                    back.slots.append(_slot(c, r, mirrored, x0, y0, mfilled, "back", ref))
        pages.append(front)
        if backs:
            pages.append(back)
    return pages


@dataclass
class BoardTable:
    """The cards of one board type (map spaces, actions printed on the board, goals) as one table."""
    type_id: str
    title: str
    head: list[str]
    rows: list[tuple[CardEntry, list[str]]]  # each card with its cells; its abilities print in the last column
    abilities: bool = True  # whether any card of the type has abilities (else no last column)


def board_tables(ref: Reference) -> list[BoardTable]:
    """A table per card type declared `board: true`: number, name, traits, cost and each number the type's
    cards have, then the abilities. Columns empty for every card of the type are left out."""
    L = ref.labels
    tables = []
    for group, cards in ref.card_groups:
        cards = [c for c in cards if c.board]
        if not cards:
            continue
        stats = list(dict.fromkeys(k for c in cards for k, _ in c.stats))
        head = [L["name"], L["number"], L["traits"], L.get("cost", "cost"), *stats]
        rows = []
        for c in cards:
            values = dict(c.stats)
            rows.append((c, [c.name, c.number or "",  # the name in the other language prints below it
                             " · ".join(c.traits), "" if c.cost is None else str(c.cost),
                             *(str(values.get(k, "")) for k in stats)]))
        keep = [i for i in range(len(head)) if i == 0 or any(cells[i] for _, cells in rows)]
        tables.append(BoardTable(cards[0].type_id, group, [head[i] for i in keep],
                                 [(c, [cells[i] for i in keep]) for c, cells in rows],
                                 any(c.abilities for c in cards)))
    return tables


def _slot(c: CardEntry, r: int, col: int, x0: float, y0: float, filled: set[int], kind: str, ref: Reference) -> Slot:
    """A card's slot: its trim box at (r, col), grown by the bleed on each side with no card next to it."""

    def empty(rr, cc):
        return not (0 <= rr < ROWS and 0 <= cc < COLS) or (rr * COLS + cc) not in filled

    bl = BLEED if empty(r, col - 1) else 0.0
    br = BLEED if empty(r, col + 1) else 0.0
    bt = BLEED if empty(r - 1, col) else 0.0
    bb = BLEED if empty(r + 1, col) else 0.0
    light, accent = type_colours(c.type_id or "card")
    slot = Slot(x=round(x0 + col * CARD_W - bl, 2), y=round(y0 + r * CARD_H - bt, 2), w=CARD_W + bl + br,
                h=CARD_H + bt + bb, bl=bl, bt=bt, colour=light, accent=accent, size=text_size(c), kind=kind, card=c)
    if kind == "back":
        slot.colour = accent
        slot.back = {"title": ref.pack_name, "sub": c.type}
    return slot


def crop_marks(x0: float, y0: float, pw: float, ph: float) -> list[dict]:
    """Hairlines in the margins on every cut line, starting 1 mm outside the bleed."""
    gap = BLEED + 1.0
    thick = 0.2
    marks = []
    top_room, side_room = y0 - gap, x0 - gap
    ln_v = max(2.0, min(6.0, top_room - 0.5))
    ln_h = max(2.0, min(6.0, side_room - 0.5))
    for k in range(COLS + 1):
        x = x0 + k * CARD_W - thick / 2
        marks.append({"x": round(x, 2), "y": round(y0 - gap - ln_v, 2), "w": thick, "h": round(ln_v, 2)})
        marks.append({"x": round(x, 2), "y": round(y0 + ROWS * CARD_H + gap, 2), "w": thick, "h": round(ln_v, 2)})
    for k in range(ROWS + 1):
        y = y0 + k * CARD_H - thick / 2
        marks.append({"x": round(x0 - gap - ln_h, 2), "y": round(y, 2), "w": round(ln_h, 2), "h": thick})
        marks.append({"x": round(x0 + COLS * CARD_W + gap, 2), "y": round(y, 2), "w": round(ln_h, 2), "h": thick})
    return marks


def render_sheets_html(ref: Reference, paper: str = "a4", backs: bool = False, copies: bool = False,
                       pack_folder: Path | None = None) -> tuple[str, int]:
    """The sheets as HTML, and how many pages of cards they take; the tables of the board's parts follow
    those pages, as many pages as they need."""
    pages = sheet_pages(ref, paper, backs, copies)
    pw, ph = PAPERS[paper]
    html = render_template(environment(pack_folder), "sheets.html.j2", pages=pages, page_w=pw, page_h=ph,
                           lang=ref.lang, title=f"{ref.pack_name} — cards", paper=paper, tables=board_tables(ref),
                           L=ref.labels, pack_name=ref.pack_name)
    return html, len(pages)


def expected_sheet_pages(cards: int, backs: bool) -> int:
    return math.ceil(cards / (COLS * ROWS)) * (2 if backs else 1)
