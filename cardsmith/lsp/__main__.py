"""`python -m cardsmith.lsp`: the language server without the rest of the command line (it starts faster;
`cardsmith lsp` runs the same server)."""

import argparse

from .server import main

parser = argparse.ArgumentParser(prog="python -m cardsmith.lsp", description=__doc__)
parser.add_argument("--stdio", action="store_true", help="LSP over stdio (the default and only transport)")
parser.add_argument("--log", metavar="FILE", help="write the server's log to FILE")
main(parser.parse_args().log)
