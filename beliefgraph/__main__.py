"""``python -m beliefgraph`` runs the command line."""

from beliefgraph.cli.main import app

app()
