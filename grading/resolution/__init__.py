"""From marks to agreed points: the comparison of jurors' marks (`comparison`), the discussion,
queue and chair's walk, decisions (`decisions`), revision requests, the inbox, live progress."""
