"""Prompt templates, as files, loaded by name."""
