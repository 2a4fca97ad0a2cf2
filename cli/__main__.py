"""`python -m cli` runs the CLI (the installed command is `papertalk`)."""

from cli.main import main

main()
