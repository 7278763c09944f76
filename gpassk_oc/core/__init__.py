"""Pure core: answer checking, judge client, caches, statistics. Never imports OpenCompass."""
