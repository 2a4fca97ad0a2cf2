"""Turning files and records into papers and chunks: PDFs, arXiv metadata files, arXiv ids."""
