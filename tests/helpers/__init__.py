"""Test helpers: PDF builders, the CLI as a subprocess, a real Chroma server."""
