"""papertalk: talk to the literature of a field, with every claim cited to a paper and a page."""

__version__ = "0.1.0"
