"""Thin routes: pydantic bodies in and out, the work done by the assistant, ingest and storage services."""
