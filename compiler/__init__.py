"""The compiler: YAML packs and effect-language text to bytecode."""
