"""The card database: what a compiled pack's cards are and do, as records, queries, tables, diffs and a site.

`records.build_catalog(result)` reads a clean compile (with its checked AST) and the generated text of
`present`; `query` runs the query language (grammar/query.lark) over `fields.search_index`; `export`
writes SQLite, CSV or JSON; `diff` compares two versions (`gitrev` reads PACK@GITREV from git objects);
`site` writes the static card browser. It sits between presentation and the tools: it may import the
bytecode, the compiler, the runtime and `present`, and only the tools import it.
"""
