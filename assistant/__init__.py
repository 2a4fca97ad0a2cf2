"""Answering: retrieval, cited answers, chats."""
