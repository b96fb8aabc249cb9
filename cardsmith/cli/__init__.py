"""The `cardsmith` command line."""

import click


@click.group()
def main() -> None:
    """cardsmith: validate, compile and play card games written as data."""


