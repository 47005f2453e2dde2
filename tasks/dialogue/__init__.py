"""The dialogue stage: topics and bullets, the session writer, shape, filler, recall, relative time and the
dialogue verifier."""
