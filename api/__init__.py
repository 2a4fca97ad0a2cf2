"""The HTTP front door: a FastAPI app over the same services the CLI uses (`papertalk serve`)."""
