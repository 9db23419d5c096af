"""The ``beliefgraph`` command line: thin wrappers over the Python API."""
