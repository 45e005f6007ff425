"""Command line (placeholder until the CLI lands)."""


def main(argv: list[str] | None = None) -> int:
    return 0
