"""`cardsmith lsp`: a language server for pack folders (diagnostics, completion, hover, navigation, rename,
semantic tokens and code actions), a thin layer over the compiler: the analysis is the compiler's own
(compiler/incremental.py, cursor.py, effect_words.py), never a second checker."""
