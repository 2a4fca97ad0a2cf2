"""The command line, one of papertalk's two front doors (the HTTP app in `api/` is the other).

Both sit above the service layer (`assistant/`, `ingest/`, `storage/`) and hold no logic the other lacks;
`papertalk/` below them holds only the ground every part may import: settings, errors, bundled data.
"""
