"""Sphinx directives that put a pack's generated rule reference and card catalogue into the docs.

``.. cardsmith-reference:: PACK``
    The rule reference of PACK (a built-in pack id, or a folder relative to the document), then
    its card catalogue and index, generated at build time exactly as ``cardsmith reference``
    makes them. Options:

    ``:lang: en`` (default) or ``ja``
        the language of the text;
    ``:no-catalogue:``
        the rules only.

    Its sections sit one level below the section the directive is in. A pack that does not
    compile is a Sphinx error, so ``sphinx-build -W`` fails.

``.. cardsmith-packs::``
    A table of every built-in pack. A pack with a page of its own (a document named by its id
    next to the current one, e.g. ``games/earth.rst``) is linked; any other built-in pack has its
    whole reference rendered right there, so a new pack is in the documentation the moment it
    exists.
"""

from __future__ import annotations

from pathlib import Path

from docutils import nodes
from docutils.parsers.rst import Directive, directives
from docutils.statemachine import StringList
from sphinx.util import logging
from sphinx.util.nodes import nested_parse_with_titles

logger = logging.getLogger(__name__)

_LEVELS = "=-~^\"'"


def _compile(ref: str, base: Path):
    from cardsmith.compiler.diagnostics import Diagnostics, render_text
    from cardsmith.compiler.packs import builtin_packs
    from cardsmith.compiler.pipeline import compile_pack

    target = ref if ref in builtin_packs() else str((base / ref).resolve())
    res = compile_pack(target, Diagnostics())
    if not res.ok:
        raise ValueError(f"pack '{ref}' does not compile:\n{render_text(res.diagnostics.sorted())}")
    return res


def _section_level(state) -> int:
    """How deep the directive sits: 1 under the page title, 2 under a section of it, ..."""
    return max(1, getattr(state.memo, "section_level", 1))


def _parse_rst(directive: Directive, text: str) -> list[nodes.Node]:
    container = nodes.section()
    container.document = directive.state.document
    what = directive.arguments[0] if directive.arguments else "packs"
    lines = StringList(text.splitlines(), source=f"<cardsmith-reference {what}>")
    nested_parse_with_titles(directive.state, lines, container)
    return container.children


def _render(res, lang: str, top_level: int, catalogue: bool) -> str:
    from cardsmith.present.reference import build_reference
    from cardsmith.present.render import render_rst

    ref = build_reference(res, lang)
    return render_rst(ref, top_level=top_level, catalogue=catalogue, label_prefix=f"{lang}-")


class ReferenceDirective(Directive):
    required_arguments = 1
    has_content = False
    option_spec = {"lang": lambda a: directives.choice(a, ("en", "ja")), "no-catalogue": directives.flag}

    def run(self):
        env = self.state.document.settings.env
        base = Path(env.doc2path(env.docname)).parent
        try:
            res = _compile(self.arguments[0], base)
            level = _section_level(self.state)
            text = _render(res, self.options.get("lang", "en"), level, "no-catalogue" not in self.options)
        except Exception as e:  # a pack that does not compile, or a describe bug: fail the build
            raise self.error(f"cardsmith-reference {self.arguments[0]}: {e}") from e
        for folder in getattr(res, "sources", []):
            env.note_dependency(str(folder.folder / "rules.yaml"))
        return _parse_rst(self, text)


class PacksDirective(Directive):
    required_arguments = 0
    has_content = False
    option_spec = {"lang": lambda a: directives.choice(a, ("en", "ja"))}

    def run(self):
        from cardsmith.compiler.packs import builtin_packs

        env = self.state.document.settings.env
        here = env.docname.rsplit("/", 1)[0] + "/" if "/" in env.docname else ""
        lang = self.options.get("lang", "en")
        level = _section_level(self.state)
        table = [".. list-table::", "   :header-rows: 1", "", "   * - Pack", "     - Name", "     - Version",
                 "     - Players", "     - Cards"]
        inline: list[str] = []
        for pid in builtin_packs():
            try:
                res = _compile(pid, Path("."))
            except Exception as e:
                raise self.error(f"cardsmith-packs: {e}") from e
            p = res.pack
            page = here + pid
            link = f":doc:`{pid} <{pid}>`" if page in env.found_docs else f"`{pid}`_"
            table += [f"   * - {link}", f"     - {p.name}", f"     - {p.version}",
                      f"     - {p.players[0]}–{p.players[1]}", f"     - {len(p.cards)}"]
            if page not in env.found_docs:
                title = f"{p.name} ({pid})"
                inline += ["", f".. _{pid}:", "", title, _LEVELS[min(level, len(_LEVELS) - 1)] * (len(title) + 2), ""]
                inline.append(_render(res, lang, level + 1, True))
        return _parse_rst(self, "\n".join(table + inline))


def setup(app):
    app.add_directive("cardsmith-reference", ReferenceDirective)
    app.add_directive("cardsmith-packs", PacksDirective)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
