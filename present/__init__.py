"""Presentation: what a compiled pack looks like to people.

Card text in English and Japanese generated from the checked AST (`describe`), rule references
(`reference`, `render`: Markdown, HTML, PDF), card sheets, the balance report and the coverage
report. Everything here reads the compiler's results and the runtime's statistics; nothing in the
compiler or the runtime imports it. Templates render in a sandbox: packs may come from strangers.
"""
