"""`python -m papertalk` runs the CLI."""

from papertalk.cli import main

main()
